package io.starintel.lease.it.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.it.redis.RedisServers;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.job.internal.LeaseRenewal;
import io.starintel.lease.job.internal.LeaseRenewalScheduler;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.redis.RedisLeaseStore;

/**
 * Benchmark harness (not a test): one JVM holding N leases (default 10,000) with TTL 30 s against the local Redis,
 * renewed by the shared scheduler for a while; reports renewals, losses, renewal lag and the CPU time of the
 * renewal threads. Uses its own random program id and releases every lease at the end.
 *
 * <p>Run with {@code java -cp <test classpath> io.starintel.lease.it.bench.ManyLeasesRenewalHarness [leases]
 * [seconds] [host:port]}; with a {@code host:port} (a Redis of its own, so that its CPU is this run's alone) it also
 * reports the server's CPU ({@code INFO cpu}) and commands ({@code INFO commandstats}) over the measured period.
 * Due renewals go to the store in batches ({@code LeaseService.renewAll}: one function call per program and batch).
 */
public final class ManyLeasesRenewalHarness {

	public static void main(String[] args) throws Exception {
		int leases = (args.length > 0) ? Integer.parseInt(args[0]) : 10_000;
		int seconds = (args.length > 1) ? Integer.parseInt(args[1]) : 45;
		String program = "program-bench-" + Identifiers.generate("p").substring(2, 12).toLowerCase();
		String server = (args.length > 2) ? args[2] : null;
		LettuceConnectionFactory factory = (server != null)
				? RedisServers.factory(server.substring(0, server.indexOf(':')),
						Integer.parseInt(server.substring(server.indexOf(':') + 1)))
				: RedisServers.factory();
		ServerStats stats = (server != null) ? new ServerStats("redis://" + server) : null;
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		LeaseService service = new LeaseService(new RedisLeaseStore(factory, RedisServers.POLICY, LeaseAlerts.LOG),
				Clock.systemUTC(), Duration.ofSeconds(5), meters, ObservationRegistry.NOOP);
		AtomicInteger lost = new AtomicInteger();
		LeaseRenewalScheduler scheduler = new LeaseRenewalScheduler(service, Clock.systemUTC(), Duration.ofSeconds(2),
				(event) -> lost.incrementAndGet(), 2);
		Timer lag = Timer.builder("lag").publishPercentiles(0.5, 0.99).register(meters);
		scheduler.setLagRecorder(lag::record);
		LeaseOwner owner = new LeaseOwner("prn_bench", "client_bench", "key_bench", "instance_bench");
		// each lease with its renewal registration, so that a lease's renewal is closed right before its release
		List<Held> held = Collections.synchronizedList(new ArrayList<>(leases));
		long acquireStart = System.nanoTime();
		int acquirers = 4;
		ExecutorService pool = Executors.newFixedThreadPool(acquirers);
		List<Future<?>> parts = new ArrayList<>();
		for (int part = 0; part < acquirers; part++) {
			int first = part;
			parts.add(pool.submit(() -> {
				for (int i = first; i < leases; i += acquirers) {
					LockIdentity identity = LockIdentity.of("tenant-bench", program, "starintel-target", "target_" + i,
							"usernamegen", "default", "default");
					LeaseResult result = service.acquire(AcquireRequest.builder(identity, owner)
						.ttl(Duration.ofSeconds(30))
						.maximumLifetime(Duration.ofHours(1))
						.execution("execution_" + i, "job_bench", "trace_" + i)
						.build(service.newId(), service.deadline()));
					if (result.lease() == null) {
						throw new IllegalStateException("acquire failed: " + result.code());
					}
					LeaseContext context = new LeaseContext(result.lease());
					held.add(new Held(context, scheduler.register(context, () -> {
					})));
				}
				return null;
			}));
		}
		for (Future<?> part : parts) {
			part.get();
		}
		pool.shutdown();
		System.out.printf("acquired %d leases in %.1f s%n", leases, (System.nanoTime() - acquireStart) / 1e9);
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		long cpuBefore = renewalCpu(threads);
		long processCpuBefore = processCpu();
		double serverCpuBefore = (stats != null) ? stats.cpuSeconds() : 0;
		long commandsBefore = (stats != null) ? stats.commands() : 0;
		long renewedBefore = renewedCount(meters);
		int lostBefore = lost.get();
		long wallStart = System.nanoTime();
		Thread.sleep(seconds * 1000L); // the measured period: the scheduler renews in the background
		double wall = (System.nanoTime() - wallStart) / 1e9;
		long renewalCpu = renewalCpu(threads) - cpuBefore;
		long processCpu = processCpu() - processCpuBefore;
		double serverCpu = (stats != null) ? stats.cpuSeconds() - serverCpuBefore : 0;
		long commands = (stats != null) ? stats.commands() - commandsBefore : 0;
		long renewed = renewedCount(meters) - renewedBefore;
		System.out.printf("period %.1f s: renewals=%d (%.0f/s), lost=%d (during acquisition %d), held=%d%n", wall,
				renewed, renewed / wall, lost.get(), lostBefore, scheduler.heldCount());
		System.out.printf("renewal lag p50=%.1f ms p99=%.1f ms max=%.1f ms%n",
				lag.takeSnapshot().percentileValues()[0].value(TimeUnit.MILLISECONDS),
				lag.takeSnapshot().percentileValues()[1].value(TimeUnit.MILLISECONDS),
				lag.max(TimeUnit.MILLISECONDS));
		System.out.printf("renewal threads CPU %.2f s (%.1f%% of one core), %.0f us per renewal; process CPU %.2f s%n",
				renewalCpu / 1e9, 100.0 * renewalCpu / 1e9 / wall, (renewed > 0) ? renewalCpu / 1e3 / renewed : 0.0,
				processCpu / 1e9);
		if (stats != null) {
			System.out.printf("redis CPU %.2f s (%.1f%% of one core), %.1f us per renewal; redis commands %d (%.1f per "
					+ "renewal, FCALL %d)%n", serverCpu, 100.0 * serverCpu / wall,
					(renewed > 0) ? serverCpu * 1e6 / renewed : 0.0, commands,
					(renewed > 0) ? (double) commands / renewed : 0.0, stats.calls("fcall"));
			System.out.printf("redis used_memory %s%n", stats.memory());
		}
		// released on the acquirers' 4 threads, each lease's renewal stopped just before its release: the leases
		// still waiting for their release keep being renewed (on a loaded machine releasing 100,000 takes longer than
		// a TTL)
		ConcurrentMap<String, LongAdder> releases =
				new ConcurrentHashMap<>();
		ExecutorService releasers = Executors.newFixedThreadPool(acquirers);
		List<Future<?>> releaseParts = new ArrayList<>();
		for (int part = 0; part < acquirers; part++) {
			int first = part;
			releaseParts.add(releasers.submit(() -> {
				for (int i = first; i < held.size(); i += acquirers) {
					held.get(i).renewal().close();
					String code = service.release(new ReleaseRequest(held.get(i).context().handle(), service.newId(),
							service.deadline())).code().wireName();
					releases.computeIfAbsent(code, (key) -> new LongAdder()).increment();
				}
				return null;
			}));
		}
		for (Future<?> part : releaseParts) {
			part.get();
		}
		releasers.shutdown();
		LongAdder released = releases.get("lease_released");
		System.out.printf("released %d of %d %s%n", (released != null) ? released.sum() : 0, leases, releases);
		scheduler.close();
		factory.destroy();
		if (stats != null) {
			stats.close();
		}
	}

	/** CPU and command counters of the Redis server ({@code INFO cpu}, {@code INFO commandstats}). */
	static final class ServerStats implements AutoCloseable {

		private final io.lettuce.core.RedisClient client;

		private final io.lettuce.core.api.StatefulRedisConnection<String, String> connection;

		ServerStats(String uri) {
			this.client = io.lettuce.core.RedisClient.create(uri);
			this.connection = this.client.connect();
		}

		double cpuSeconds() {
			String info = this.connection.sync().info("cpu");
			return field(info, "used_cpu_sys:") + field(info, "used_cpu_user:");
		}

		long commands() {
			long total = 0;
			for (String line : this.connection.sync().info("commandstats").split("\r?\n")) {
				int calls = line.indexOf("calls=");
				if (line.startsWith("cmdstat_") && calls > 0 && !line.startsWith("cmdstat_info:")) {
					total += Long.parseLong(line.substring(calls + 6, line.indexOf(',', calls)));
				}
			}
			return total;
		}

		long calls(String command) {
			for (String line : this.connection.sync().info("commandstats").split("\r?\n")) {
				if (line.startsWith("cmdstat_" + command + ":")) {
					int calls = line.indexOf("calls=");
					return Long.parseLong(line.substring(calls + 6, line.indexOf(',', calls)));
				}
			}
			return 0;
		}

		String memory() {
			String info = this.connection.sync().info("memory");
			for (String line : info.split("\r?\n")) {
				if (line.startsWith("used_memory_human:")) {
					return line.substring("used_memory_human:".length());
				}
			}
			return "?";
		}

		private static double field(String info, String name) {
			for (String line : info.split("\r?\n")) {
				if (line.startsWith(name)) {
					return Double.parseDouble(line.substring(name.length()).trim());
				}
			}
			return 0;
		}

		@Override
		public void close() {
			this.connection.close();
			this.client.shutdown();
		}

	}

	private static long renewedCount(SimpleMeterRegistry meters) {
		Timer timer = meters.find(LeaseService.OPERATION_TIMER).tag("operation", "renew").tag("code", "lease_renewed")
			.timer();
		return (timer != null) ? timer.count() : 0;
	}

	private static long renewalCpu(ThreadMXBean threads) {
		long total = 0;
		for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
			if (info != null && info.getThreadName().startsWith("starintel-lease-renewal-")) {
				total += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
			}
		}
		return total;
	}

	private static long processCpu() {
		return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
	}

	/** A held lease and its renewal registration. */
	private record Held(LeaseContext context, LeaseRenewal renewal) {
	}

}
