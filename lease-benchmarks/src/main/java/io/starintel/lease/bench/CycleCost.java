package io.starintel.lease.bench;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.TreeMap;

import io.starintel.lease.audit.internal.AsyncAuditPipeline;

/**
 * Where the client cost of a cycle goes, by thread: runs {@code bench.cycles} cycles of each library in
 * {@code bench.libraries} (default {@code store,audited}) on one thread, after {@code bench.warmupCycles}, and prints
 * CPU µs and allocated bytes per cycle of every JVM thread group (thread names without their numbers), from
 * {@code ThreadMXBean}, and the process's CPU (which also counts the JIT, the GC and threads that ended meanwhile, such
 * as a log file's compression). {@code memory-store} and {@code memory-audited} are the same two paths over the in-memory
 * store (no Redis, no network: only the client's own work). Not a throughput benchmark: a profile that does not depend on what else the machine runs.
 *
 * <pre>
 * java -cp "lease-benchmarks/target/classes:$(cat lease-benchmarks/target/bench.classpath)" \
 *   -Dbench.redis=redis://127.0.0.1:16379 io.starintel.lease.bench.CycleCost
 * </pre>
 */
public final class CycleCost {

	private static final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory
		.getThreadMXBean();

	private static final com.sun.management.OperatingSystemMXBean PROCESS = (com.sun.management.OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private CycleCost() {
	}

	public static void main(String[] args) throws Exception {
		int warmup = Integer.getInteger("bench.warmupCycles", 20_000);
		int cycles = Integer.getInteger("bench.cycles", 20_000);
		int rounds = Integer.getInteger("bench.rounds", 2);
		String run = "c" + Long.toString(System.currentTimeMillis() % 100_000_000L, 36);
		for (String name : System.getProperty("bench.libraries", "store,audited").split(",")) {
			boolean memory = name.startsWith("memory-");
			try (LockLibrary library = memory
					? new StarterLibrary(BenchRedis.fromEnvironment(), run + "-" + name, name.endsWith("audited"), true, true,
							false)
					: LockLibrary.create(name, BenchRedis.fromEnvironment(), run + "-" + name)) {
				LockCycle cycle = library.open(run + "-" + name + "-k", 0);
				run(cycle, warmup);
				for (int round = 1; round <= rounds; round++) {
					library.awaitAuditDelivered();
					Map<String, long[]> before = snapshot();
					long processBefore = PROCESS.getProcessCpuTime();
					long started = System.nanoTime();
					run(cycle, cycles);
					long elapsed = System.nanoTime() - started;
					library.awaitAuditDelivered(); // the audit pipeline's work for these cycles counts in this round
					long process = PROCESS.getProcessCpuTime() - processBefore;
					print(name + " round " + round, before, snapshot(), cycles, elapsed);
					System.out.printf("  %-60s %8.1f µs (JIT, GC and ended threads included)%n", "process",
							process / 1e3 / cycles);
					AsyncAuditPipeline pipeline = (library instanceof StarterLibrary starter) ? starter.auditPipeline() : null;
					if (pipeline != null) {
						System.out.printf("  audit pipeline: %d delivered, %d dropped in total%n",
								pipeline.deliveredCount(), pipeline.droppedCount());
					}
				}
			}
		}
	}

	private static void run(LockCycle cycle, int cycles) {
		for (int i = 0; i < cycles; i++) {
			if (!cycle.run()) {
				throw new IllegalStateException("not acquired");
			}
		}
	}

	/** CPU nanos and allocated bytes by thread group. */
	private static Map<String, long[]> snapshot() {
		Map<String, long[]> groups = new TreeMap<>();
		for (long id : threads.getAllThreadIds()) {
			java.lang.management.ThreadInfo info = threads.getThreadInfo(id);
			if (info == null) {
				continue;
			}
			long[] group = groups.computeIfAbsent(info.getThreadName().replaceAll("\\d+", "#"), (k) -> new long[2]);
			group[0] += Math.max(0, threads.getThreadCpuTime(id));
			group[1] += Math.max(0, threads.getThreadAllocatedBytes(id));
		}
		return groups;
	}

	private static void print(String title, Map<String, long[]> before, Map<String, long[]> after, int cycles,
			long elapsedNanos) {
		System.out.printf("%n%s: %.0f cycles/s, %.1f µs/cycle wall%n", title, cycles * 1e9 / elapsedNanos,
				elapsedNanos / 1e3 / cycles);
		double cpu = 0;
		double bytes = 0;
		for (Map.Entry<String, long[]> entry : after.entrySet()) {
			long[] was = before.getOrDefault(entry.getKey(), new long[2]);
			double c = (entry.getValue()[0] - was[0]) / 1e3 / cycles;
			double b = (entry.getValue()[1] - was[1]) / (double) cycles;
			cpu += c;
			bytes += b;
			if (c >= 0.5 || b >= 16) {
				System.out.printf("  %-60s %8.1f µs %9.0f B%n", entry.getKey(), c, b);
			}
		}
		System.out.printf("  %-60s %8.1f µs %9.0f B%n", "all threads", cpu, bytes);
	}

}
