package io.starintel.lease.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * Paired ratios under one machine state: the libraries of a cell (keys, threads) all live in this JVM at once and take
 * turns, one time slice each per round, in a shuffled order per round, so that each library's cycles/s is divided by
 * the reference's of the same round, a few seconds apart, instead of by a JMH fork measured minutes earlier on a VM
 * whose speed drifts by ±40 %. Writes {@code ${bench.out}/interleaved.jsonl} (one line per measured slice) and, from
 * it, {@code interleaved.md} ({@link InterleavedReport}; also printed). The audited paths' slices ({@code audited},
 * {@code job}) last until their audit pipeline has delivered its backlog (inside the slice's time), so that their
 * audit work is charged to them, not to the next library. Run by {@code bash scripts/bench.sh --interleaved}.
 *
 * <p>System properties (all optional): {@code bench.out} ({@code target/bench}), {@code bench.redis},
 * {@code bench.redisPerLibrary} and {@code bench.replicaPerLibrary} ({@code library=url,...}),
 * {@code bench.threads} ({@code 1,8}), {@code bench.keys} ({@code distinct,contended}), {@code bench.libraries}
 * ({@link LockLibrary#DEFAULTS}, or {@link LockLibrary#REPLICA_DEFAULTS} when the servers have replicas),
 * {@code bench.warmupSlices} (per library, 5), {@code bench.slices} (measured rounds, 12), {@code bench.sliceMillis}
 * (1000), {@code bench.seed} (of the shuffles; default random, printed), {@code bench.fillKeys} (other keys added to
 * every server before the run, 0) and {@code bench.fillBytes} (their value size, 200), {@code bench.redisMode} (a note
 * for the report).
 */
public final class InterleavedRun {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory
		.getThreadMXBean();

	private static final com.sun.management.OperatingSystemMXBean PROCESS = (com.sun.management.OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private InterleavedRun() {
	}

	/** One library of a cell: a cycle per thread and the latency recorder. */
	private record Entry(String name, LockLibrary library, List<LockCycle> cycles, Recorder recorder) {
	}

	/** What one worker thread counted in one slice. */
	private record Counts(long attempts, long acquired, long endNanos) {
	}

	/** The libraries of one cell, closed together (the last opened first). */
	private record Cell(List<Entry> entries) implements AutoCloseable {

		/** Creates the library and opens its cycles, one per thread, on the cell's keys. */
		void open(String library, BenchRedis redis, String cellName, String keys, int threads) {
			LockLibrary opened = LockLibrary.create(library, redis, cellName);
			Entry entry = new Entry(library, opened, new ArrayList<>(), new Recorder(3));
			this.entries.add(entry);
			for (int t = 0; t < threads; t++) {
				entry.cycles().add(opened.open(keys.equals("contended") ? "shared" : "t-" + t, t));
			}
		}

		@Override
		public void close() {
			RuntimeException failure = null;
			for (int i = this.entries.size() - 1; i >= 0; i--) {
				try {
					this.entries.get(i).library().close();
				}
				catch (RuntimeException ex) {
					if (failure == null) {
						failure = ex;
					}
					else {
						failure.addSuppressed(ex);
					}
				}
			}
			if (failure != null) {
				throw failure;
			}
		}

	}

	/**
	 * Each library's server and one {@link RedisCounters} per distinct server and replica: a slice's Redis figures
	 * are read from the server its library uses (and from that server's replica).
	 */
	private record Counters(Map<String, BenchRedis> servers, Map<String, RedisCounters> byUrl)
			implements AutoCloseable {

		static Counters open(List<String> libraries) {
			Map<String, BenchRedis> servers = new LinkedHashMap<>();
			Map<String, RedisCounters> byUrl = new LinkedHashMap<>();
			try {
				for (String library : libraries) {
					BenchRedis server = BenchRedis.forLibrary(library);
					servers.put(library, server);
					byUrl.computeIfAbsent(server.url(), (url) -> new RedisCounters(server));
					BenchRedis replica = server.replicaServer();
					if (replica != null) {
						byUrl.computeIfAbsent(replica.url(), (url) -> new RedisCounters(replica));
					}
				}
			}
			catch (RuntimeException ex) {
				byUrl.values().forEach(RedisCounters::close);
				throw ex;
			}
			return new Counters(servers, byUrl);
		}

		BenchRedis server(String library) {
			return this.servers.get(library);
		}

		RedisCounters of(String library) {
			return this.byUrl.get(server(library).url());
		}

		@Nullable RedisCounters replicaOf(String library) {
			String replica = server(library).replicaUrl();
			return (replica != null) ? this.byUrl.get(replica) : null;
		}

		boolean replicated() {
			return this.servers.values().stream().anyMatch((s) -> s.replica() != null);
		}

		/** Adds the fill keys to every distinct primary; a note for the report. */
		String fill(long count, int bytes) {
			if (count <= 0) {
				return "";
			}
			Map<String, BenchRedis> primaries = new LinkedHashMap<>();
			this.servers.values().forEach((s) -> primaries.putIfAbsent(s.url(), s));
			long added = 0;
			for (BenchRedis server : primaries.values()) {
				added += server.fill(count, bytes);
			}
			return String.format(Locale.ROOT, "%,d other keys of %d bytes (PX 25 h) in each of %d server(s) (%,d added "
					+ "now)", count, bytes, primaries.size(), added);
		}

		/** The version and address of the server(s), for the report. */
		String describe() {
			String version = this.byUrl.values().iterator().next().version();
			Map<String, List<String>> byServer = new LinkedHashMap<>();
			this.servers.forEach((library, server) -> byServer
				.computeIfAbsent(server.url() + ((server.replicaUrl() != null) ? " (replica " + server.replicaUrl() + ")" : ""),
						(k) -> new ArrayList<>())
				.add(library));
			if (byServer.size() == 1) {
				return version + " at " + byServer.keySet().iterator().next() + " (shared by all libraries)";
			}
			StringBuilder text = new StringBuilder(version).append(", one server per library:");
			byServer.forEach((server, names) -> text.append(' ').append(String.join(",", names)).append(' ')
				.append(server).append(';'));
			text.setLength(text.length() - 1);
			return text.toString();
		}

		@Override
		public void close() {
			this.byUrl.values().forEach(RedisCounters::close);
		}

	}

	public static void main(String[] args) throws Exception {
		Path out = Path.of(System.getProperty("bench.out", "target/bench"));
		Files.createDirectories(out);
		Path jsonl = out.resolve("interleaved.jsonl");
		Files.deleteIfExists(jsonl);
		String run = "i" + Long.toString(System.currentTimeMillis() % 100_000_000L, 36);
		long seed = Long.getLong("bench.seed", System.nanoTime());
		int warmup = Integer.getInteger("bench.warmupSlices", 5);
		int rounds = Integer.getInteger("bench.slices", 12);
		int sliceMillis = Integer.getInteger("bench.sliceMillis", 1000);
		System.out.println("interleaved run " + run + ", shuffle seed " + seed);
		Random random = new Random(seed);
		List<String> environment = new ArrayList<>();
		environment.add("date " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + ", commit " + commit());
		environment.add("load average before: " + loadAverage());
		boolean anyReplica = BenchRedis.fromEnvironment().replica() != null
				|| !System.getProperty("bench.replicaPerLibrary", "").isBlank();
		List<String> libraries = list("bench.libraries",
				String.join(",", anyReplica ? LockLibrary.REPLICA_DEFAULTS : LockLibrary.DEFAULTS));
		try (Counters counters = Counters.open(libraries)) {
			String mode = System.getProperty("bench.redisMode", "");
			environment.add(Runtime.getRuntime().availableProcessors() + " cores, Java "
					+ System.getProperty("java.version") + ", Redis " + counters.describe()
					+ (mode.isBlank() ? "" : ": " + mode) + "; client transport " + BenchTransport.current().label());
			String fill = counters.fill(Long.getLong("bench.fillKeys", 0), Integer.getInteger("bench.fillBytes", 200));
			if (!fill.isEmpty()) {
				environment.add("keyspace: " + fill);
			}
			if (counters.replicated()) {
				environment.add("each server has a replica (replicaof); the store waits for it (WAIT after every "
						+ "change), Redisson runs with its replica check, the -wait references send WAIT 1");
			}
			for (String threadCount : list("bench.threads", "1,8")) {
				int threads = Integer.parseInt(threadCount);
				ExecutorService pool = Executors.newFixedThreadPool(threads);
				try {
					for (String keys : list("bench.keys", "distinct,contended")) {
						String name = threads + (threads == 1 ? " thread, " : " threads, ") + keys;
						System.out.println("cell " + name + ": " + warmup + " warm-up and " + rounds
								+ " measured slices of " + sliceMillis + " ms per library");
						try (Cell cell = new Cell(new ArrayList<>())) {
							for (String library : libraries) {
								cell.open(library, counters.server(library),
										run + "-" + library + "-" + keys + "-t" + threads, keys, threads);
							}
							for (int round = 1 - warmup; round <= rounds; round++) {
								List<Entry> order = new ArrayList<>(cell.entries());
								Collections.shuffle(order, random);
								for (Entry entry : order) {
									InterleavedReport.Slice slice = slice(pool, entry, keys, threads, sliceMillis,
											counters.of(entry.name()), counters.replicaOf(entry.name()), round);
									if (round >= 1) {
										Files.writeString(jsonl, JSON.writeValueAsString(slice) + "\n",
												StandardCharsets.UTF_8, StandardOpenOption.CREATE,
												StandardOpenOption.APPEND);
									}
								}
							}
						}
					}
				}
				finally {
					pool.shutdownNow();
					pool.awaitTermination(10, TimeUnit.SECONDS);
				}
			}
		}
		environment.add("load average after: " + loadAverage());
		environment.add("shuffle seed " + seed + "; per cell and library " + warmup + " warm-up slices, then " + rounds
				+ " rounds of one " + sliceMillis + " ms slice each, libraries in a shuffled order per round");
		Files.write(out.resolve("interleaved-environment.txt"), environment, StandardCharsets.UTF_8);
		String report = InterleavedReport.render(InterleavedReport.cells(InterleavedReport.read(out)), environment);
		Files.writeString(out.resolve("interleaved.md"), report, StandardCharsets.UTF_8);
		System.out.println(report);
	}

	/** Runs one slice of one library on all threads; a cycle's exception stops the others and fails the run. */
	private static InterleavedReport.Slice slice(ExecutorService pool, Entry entry, String keys, int threads,
			int sliceMillis, RedisCounters counters, @Nullable RedisCounters replica, int round) throws Exception {
		CountDownLatch ready = new CountDownLatch(threads);
		CountDownLatch go = new CountDownLatch(1);
		AtomicLong deadline = new AtomicLong();
		AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
		List<Future<Counts>> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			LockCycle cycle = entry.cycles().get(t);
			workers.add(pool.submit(() -> work(cycle, entry.recorder(), ready, go, deadline, failure)));
		}
		ready.await();
		entry.recorder().reset();
		RedisCounters.Snapshot before = counters.snapshot();
		RedisCounters.Snapshot replicaBefore = (replica != null) ? replica.snapshot() : null;
		long cpuBefore = PROCESS.getProcessCpuTime();
		long allocatedBefore = THREADS.getTotalThreadAllocatedBytes();
		long start = System.nanoTime();
		deadline.set(start + TimeUnit.MILLISECONDS.toNanos(sliceMillis));
		go.countDown();
		long attempts = 0;
		long acquired = 0;
		long end = start;
		for (Future<Counts> worker : workers) {
			Counts counts = worker.get();
			attempts += counts.attempts();
			acquired += counts.acquired();
			end = Math.max(end, counts.endNanos());
		}
		if (entry.library().awaitAuditDelivered()) {
			// the audited paths: the slice lasts until its audit backlog is delivered, so its audit work is counted
			// in its own slice (time, CPU and Redis CPU), not in the next library's
			end = Math.max(end, System.nanoTime());
		}
		long allocated = THREADS.getTotalThreadAllocatedBytes() - allocatedBefore;
		long cpu = PROCESS.getProcessCpuTime() - cpuBefore;
		RedisCounters.Snapshot after = counters.snapshot();
		double replicaCpu = (replica != null && replicaBefore != null)
				? replica.snapshot().cpuSeconds() - replicaBefore.cpuSeconds() : 0;
		Histogram latencies = entry.recorder().getIntervalHistogram();
		Throwable failed = failure.get();
		if (failed != null) {
			throw new IllegalStateException(entry.name() + " failed in " + ((round >= 1) ? "round " + round : "warm-up")
					+ " (" + keys + ", " + threads + " threads): " + failed, failed);
		}
		Map<String, Long> byName = after.callsSince(before);
		long commands = RedisCounters.clientCommands(byName);
		return new InterleavedReport.Slice(round, entry.name(), keys, threads, attempts, acquired, end - start,
				after.cpuSeconds() - before.cpuSeconds(), replicaCpu, commands, byName, cpu, allocated,
				InterleavedReport.Slice.encode(latencies));
	}

	private static Counts work(LockCycle cycle, Recorder latencies, CountDownLatch ready, CountDownLatch go,
			AtomicLong deadline, AtomicReference<@Nullable Throwable> failure) throws InterruptedException {
		ready.countDown();
		go.await();
		long stop = deadline.get();
		long attempts = 0;
		long acquired = 0;
		long now = System.nanoTime();
		try {
			while (now - stop < 0 && failure.get() == null) {
				boolean ok = cycle.run();
				long end = System.nanoTime();
				latencies.recordValue(end - now);
				attempts++;
				acquired += ok ? 1 : 0;
				now = end;
			}
		}
		catch (Throwable ex) {
			failure.compareAndSet(null, ex);
		}
		return new Counts(attempts, acquired, now);
	}

	private static List<String> list(String property, String defaults) {
		String value = System.getProperty(property);
		return Arrays.stream(((value == null || value.isBlank()) ? defaults : value).split(","))
			.map(String::trim)
			.filter((s) -> !s.isEmpty())
			.toList();
	}

	static String loadAverage() {
		try {
			return Files.readString(Path.of("/proc/loadavg"), StandardCharsets.UTF_8).strip();
		}
		catch (IOException ex) {
			return "?";
		}
	}

	static String commit() {
		try {
			Process git = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
			String hash = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
			return (git.waitFor() == 0 && !hash.isEmpty()) ? hash : "?";
		}
		catch (IOException | InterruptedException ex) {
			return "?";
		}
	}

}
