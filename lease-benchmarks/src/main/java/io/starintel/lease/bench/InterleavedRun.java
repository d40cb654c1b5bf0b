package io.starintel.lease.bench;

import java.io.IOException;
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
import java.util.function.ToLongFunction;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * Paired ratios under one machine state: the libraries of a cell (keys, threads) all live in this JVM at once and take
 * turns, one time slice each per round, in a shuffled order per round, so that each library's cycles/s is divided by
 * the reference's of the same round, a few seconds apart, instead of by a JMH fork measured minutes earlier on a VM
 * whose speed drifts by ±40 %. Writes {@code ${bench.out}/interleaved.md} (also printed) and
 * {@code interleaved.jsonl} (one line per measured slice). The audited path's slice lasts until its audit pipeline has
 * delivered its backlog (inside the slice's time), so that its audit work is charged to it, not to the next library. Run by
 * {@code bash scripts/bench.sh --interleaved}.
 *
 * <p>System properties (all optional): {@code bench.out} ({@code target/bench}), {@code bench.redis},
 * {@code bench.threads} ({@code 1,8}), {@code bench.keys} ({@code distinct,contended}), {@code bench.libraries} (all),
 * {@code bench.warmupSlices} (per library, 5), {@code bench.slices} (measured rounds, 12), {@code bench.sliceMillis}
 * (1000), {@code bench.seed} (of the shuffles; default random, printed), {@code bench.redisMode} (a note for the report).
 */
public final class InterleavedRun {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private InterleavedRun() {
	}

	/** One measured slice of one library, also a line of {@code interleaved.jsonl}. */
	private record Slice(int round, String library, String keys, int threads, long attempts, long acquired, long nanos,
			double redisCpuSeconds, long commands) {

		double cyclesPerSecond() {
			return this.attempts * 1e9 / this.nanos;
		}

	}

	/** One library of a cell: a cycle per thread, the latency recorder, and what its measured slices recorded. */
	private record Entry(String name, LockLibrary library, List<LockCycle> cycles, Recorder recorder,
			Histogram latencies, List<Slice> slices) {

		long sum(ToLongFunction<Slice> metric) {
			return this.slices.stream().mapToLong(metric).sum();
		}

	}

	/** What one worker thread counted in one slice. */
	private record Counts(long attempts, long acquired, long endNanos) {
	}

	/** The libraries of one cell, closed together (the last opened first). */
	private record Cell(String name, List<Entry> entries) implements AutoCloseable {

		/** Creates the library and opens its cycles, one per thread, on the cell's keys. */
		void open(String library, BenchRedis redis, String cellName, String keys, int threads) {
			LockLibrary opened = LockLibrary.create(library, redis, cellName);
			Entry entry = new Entry(library, opened, new ArrayList<>(), new Recorder(3), new Histogram(3),
					new ArrayList<>());
			this.entries.add(entry);
			for (int t = 0; t < threads; t++) {
				entry.cycles().add(opened.open(keys.equals("contended") ? "shared" : "t-" + t, t));
			}
		}

		@Nullable Entry find(String library) {
			return this.entries.stream().filter((e) -> e.name().equals(library)).findFirst().orElse(null);
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
	 * Each library's server and one {@link RedisCounters} per distinct server: a slice's Redis figures are read from
	 * the server its library uses.
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

		/** The version and address of the server(s), for the report. */
		String describe() {
			String version = this.byUrl.values().iterator().next().version();
			if (this.byUrl.size() == 1) {
				return version + " at " + this.byUrl.keySet().iterator().next() + " (shared by all libraries)";
			}
			StringBuilder text = new StringBuilder(version).append(", one server per library:");
			this.servers.forEach((library, server) -> text.append(' ').append(library).append(' ').append(server.url())
				.append(';'));
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
		List<String> libraries = list("bench.libraries", String.join(",", BenchReport.LIBRARIES));
		System.out.println("interleaved run " + run + ", shuffle seed " + seed);
		Random random = new Random(seed);
		List<String> environment = new ArrayList<>();
		environment.add("date " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + ", commit " + commit());
		environment.add("load average before: " + loadAverage());
		List<Cell> cells = new ArrayList<>();
		try (Counters counters = Counters.open(libraries)) {
			String mode = System.getProperty("bench.redisMode", "");
			environment.add(Runtime.getRuntime().availableProcessors() + " cores, Java "
					+ System.getProperty("java.version") + ", Redis " + counters.describe()
					+ (mode.isBlank() ? "" : ": " + mode));
			for (String threadCount : list("bench.threads", "1,8")) {
				int threads = Integer.parseInt(threadCount);
				ExecutorService pool = Executors.newFixedThreadPool(threads);
				try {
					for (String keys : list("bench.keys", "distinct,contended")) {
						String name = threads + (threads == 1 ? " thread, " : " threads, ") + keys;
						System.out.println("cell " + name + ": " + warmup + " warm-up and " + rounds
								+ " measured slices of " + sliceMillis + " ms per library");
						try (Cell cell = new Cell(name, new ArrayList<>())) {
							for (String library : libraries) {
								cell.open(library, counters.server(library), run + "-" + library + "-" + keys + "-t" + threads,
										keys, threads);
							}
							for (int round = 1 - warmup; round <= rounds; round++) {
								List<Entry> order = new ArrayList<>(cell.entries());
								Collections.shuffle(order, random);
								for (Entry entry : order) {
									Slice slice = slice(pool, entry, keys, threads, sliceMillis,
											counters.of(entry.name()), round);
									if (round >= 1) {
										entry.slices().add(slice);
										Files.writeString(jsonl, JSON.writeValueAsString(slice) + "\n",
												StandardCharsets.UTF_8, StandardOpenOption.CREATE,
												StandardOpenOption.APPEND);
									}
								}
							}
							cells.add(cell);
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
		String report = render(cells, libraries, environment);
		Files.writeString(out.resolve("interleaved.md"), report, StandardCharsets.UTF_8);
		System.out.println(report);
	}

	/** Runs one slice of one library on all threads; a cycle's exception stops the others and fails the run. */
	private static Slice slice(ExecutorService pool, Entry entry, String keys, int threads, int sliceMillis,
			RedisCounters counters, int round) throws Exception {
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
			// the audited path: the slice lasts until its audit backlog is delivered, so its audit work is counted
			// in its own slice (time and Redis CPU), not in the next library's
			end = Math.max(end, System.nanoTime());
		}
		RedisCounters.Snapshot after = counters.snapshot();
		Histogram latencies = entry.recorder().getIntervalHistogram();
		if (round >= 1) {
			entry.latencies().add(latencies);
		}
		Throwable failed = failure.get();
		if (failed != null) {
			throw new IllegalStateException(entry.name() + " failed in " + ((round >= 1) ? "round " + round : "warm-up")
					+ " (" + keys + ", " + threads + " threads): " + failed, failed);
		}
		long commands = after.callsSince(before).values().stream().mapToLong(Long::longValue).sum();
		return new Slice(round, entry.name(), keys, threads, attempts, acquired, end - start,
				after.cpuSeconds() - before.cpuSeconds(), commands);
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

	private static String render(List<Cell> cells, List<String> libraries, List<String> environment) {
		StringBuilder md = new StringBuilder("## Interleaved paired ratios\n\n");
		environment.forEach((line) -> md.append("- ").append(line).append('\n'));
		md.append("\nOne cycle = one acquire attempt plus, when acquired, its release. ×ref: the median over rounds of ")
			.append("the library's cycles/s divided by the reference's in the same round (min–max in brackets). ")
			.append("cycles/s: median over the slices; p50/p99: all measured attempts; Redis figures: sums over the ")
			.append("measured slices ÷ attempts.\n");
		for (Cell cell : cells) {
			md.append("\n### ").append(cell.name()).append("\n\n| library | cycles/s | ×ref | acquired/attempted ")
				.append("| p50 µs | p99 µs | Redis cmds/cycle | Redis CPU µs/cycle |\n")
				.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
			for (Entry e : cell.entries()) {
				double attempts = e.sum(Slice::attempts);
				double cpuSeconds = e.slices().stream().mapToDouble(Slice::redisCpuSeconds).sum();
				md.append("| ").append(e.name()).append(" | ")
					.append(fmt(BenchReport.median(e.slices().stream().mapToDouble(Slice::cyclesPerSecond).toArray()), 0))
					.append(" | ").append(ratio(e, cell.find("reference"))).append(" | ")
					.append(fmt(e.sum(Slice::acquired), 0)).append(" / ").append(fmt(attempts, 0)).append(" | ")
					.append(fmt(e.latencies().getValueAtPercentile(50) / 1e3, 1)).append(" | ")
					.append(fmt(e.latencies().getValueAtPercentile(99) / 1e3, 1)).append(" | ")
					.append(fmt(e.sum(Slice::commands) / attempts, 2)).append(" | ")
					.append(fmt(cpuSeconds * 1e6 / attempts, 1)).append(" |\n");
			}
			Entry audited = cell.find("audited");
			if (audited != null && cell.find("store") != null) {
				md.append("\naudited ÷ store, per round: ").append(ratio(audited, cell.find("store"))).append('\n');
			}
		}
		List<String> columns = libraries.stream().filter((l) -> !l.equals("reference")).toList();
		boolean auditedVsStore = libraries.containsAll(List.of("store", "audited"));
		md.append("\n### Median per-round ratio of cycles/s to the reference\n\n| cell |");
		columns.forEach((l) -> md.append(' ').append(l).append(" |"));
		md.append(auditedVsStore ? " audited ÷ store |" : "").append("\n|---|")
			.append("---:|".repeat(columns.size() + (auditedVsStore ? 1 : 0))).append('\n');
		for (Cell cell : cells) {
			md.append("| ").append(cell.name()).append(" |");
			for (String library : columns) {
				md.append(' ').append(medianRatio(cell.find(library), cell.find("reference"))).append(" |");
			}
			if (auditedVsStore) {
				md.append(' ').append(medianRatio(cell.find("audited"), cell.find("store"))).append(" |");
			}
			md.append('\n');
		}
		return md.toString();
	}

	private static String medianRatio(@Nullable Entry entry, @Nullable Entry base) {
		return (entry != null) ? fmt(BenchReport.median(ratios(entry, base)), 2) : "–";
	}

	/** Per round: the library's cycles/s ÷ the base's in the same round (none without a base). */
	private static double[] ratios(Entry entry, @Nullable Entry base) {
		if (base == null) {
			return new double[0];
		}
		return entry.slices().stream()
			.mapToDouble((s) -> s.cyclesPerSecond() / base.slices().get(s.round() - 1).cyclesPerSecond())
			.toArray();
	}

	/** {@code median (min–max)} of the per-round ratios. */
	private static String ratio(Entry entry, @Nullable Entry base) {
		double[] ratios = ratios(entry, base);
		if (ratios.length == 0) {
			return "–";
		}
		return fmt(BenchReport.median(ratios), 2) + " (" + fmt(Arrays.stream(ratios).min().orElseThrow(), 2) + "–"
				+ fmt(Arrays.stream(ratios).max().orElseThrow(), 2) + ")";
	}

	private static List<String> list(String property, String defaults) {
		String value = System.getProperty(property);
		return Arrays.stream(((value == null || value.isBlank()) ? defaults : value).split(","))
			.map(String::trim)
			.filter((s) -> !s.isEmpty())
			.toList();
	}

	private static String loadAverage() {
		try {
			return Files.readString(Path.of("/proc/loadavg"), StandardCharsets.UTF_8).strip();
		}
		catch (IOException ex) {
			return "?";
		}
	}

	private static String commit() {
		try {
			Process git = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
			String hash = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
			return (git.waitFor() == 0 && !hash.isEmpty()) ? hash : "?";
		}
		catch (IOException | InterruptedException ex) {
			return "?";
		}
	}

	private static String fmt(double value, int decimals) {
		return Double.isFinite(value) ? String.format(Locale.ROOT, "%,." + decimals + "f", value) : "–";
	}

}
