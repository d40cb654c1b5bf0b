package io.starintel.lease.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.infra.ThreadParams;
import org.openjdk.jmh.runner.IterationType;
import tools.jackson.databind.json.JsonMapper;

/**
 * One acquire+release attempt per operation ({@code cycle}), per library and key mode; the thread count comes from
 * the runner ({@code -t}). JMH measures throughput (attempts/s) and, with {@code -prof gc}, allocation per attempt
 * ({@code gc.alloc.rate.norm}, all JVM threads: event loops included). Around each measurement iteration this class
 * also records what JMH does not: every attempt's latency (HdrHistogram), acquired vs attempted, the Redis server's
 * commands ({@code INFO commandstats}) and CPU ({@code INFO cpu}), and this JVM's CPU. One JSON line per cell goes to
 * {@code ${bench.out}/counters.jsonl}; {@link BenchReport} joins it with JMH's JSON.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 5)
@Fork(1)
public class LockCycleBenchmark {

	/** The library under test (see {@link LockLibrary#create}). */
	@Param({ "reference", "bare-v3", "store", "audited", "job", "redisson-fenced", "redisson-lock", "shedlock",
			"spring-integration", "reference-wait", "bare-v3-wait", "store-nowait" })
	public String library = "reference";

	/** {@code distinct}: each thread its own key; {@code contended}: every thread the same key. */
	@Param({ "distinct", "contended" })
	public String keys = "distinct";

	private final Recorder latencies = new Recorder(3);

	private final Histogram measuredLatencies = new Histogram(3);

	private final LongAdder attempts = new LongAdder();

	private final LongAdder acquired = new LongAdder();

	private final Map<String, Long> commands = new TreeMap<>();

	private long measuredAttempts;

	private long measuredAcquired;

	private long measuredNanos;

	private double redisCpuSeconds;

	private double replicaCpuSeconds;

	private @Nullable RedisCounters replicaCounters;

	private RedisCounters.@Nullable Snapshot replicaBefore;

	private long clientCpuNanos;

	private int threads;

	private String cell = "";

	private @Nullable LockLibrary lockLibrary;

	private @Nullable RedisCounters counters;

	private RedisCounters.@Nullable Snapshot before;

	private long startNanos;

	private long startCpuNanos;

	@Setup(Level.Trial)
	public void startTrial(BenchmarkParams params) {
		this.threads = params.getThreads();
		this.cell = System.getProperty("bench.run", "run") + "-r" + Integer.getInteger("bench.round", 1) + "-" + this.library + "-" + this.keys + "-t" + this.threads;
		BenchRedis redis = BenchRedis.forLibrary(this.library);
		this.counters = new RedisCounters(redis);
		BenchRedis replica = redis.replicaServer();
		this.replicaCounters = (replica != null) ? new RedisCounters(replica) : null;
		this.lockLibrary = LockLibrary.create(this.library, redis, this.cell);
	}

	@Setup(Level.Iteration)
	public void startIteration(IterationParams iteration) {
		this.latencies.reset();
		this.attempts.reset();
		this.acquired.reset();
		this.before = counters().snapshot();
		this.replicaBefore = (this.replicaCounters != null) ? this.replicaCounters.snapshot() : null;
		this.startCpuNanos = processCpuNanos();
		this.startNanos = System.nanoTime();
	}

	@TearDown(Level.Iteration)
	public void endIteration(IterationParams iteration) {
		long elapsed = System.nanoTime() - this.startNanos;
		long cpu = processCpuNanos() - this.startCpuNanos;
		RedisCounters.Snapshot after = counters().snapshot();
		RedisCounters.Snapshot replicaAfter = (this.replicaCounters != null) ? this.replicaCounters.snapshot() : null;
		Histogram interval = this.latencies.getIntervalHistogram();
		if (iteration.getType() != IterationType.MEASUREMENT || this.before == null) {
			return;
		}
		this.measuredNanos += elapsed;
		this.clientCpuNanos += cpu;
		this.measuredAttempts += this.attempts.sum();
		this.measuredAcquired += this.acquired.sum();
		this.redisCpuSeconds += after.cpuSeconds() - this.before.cpuSeconds();
		if (replicaAfter != null && this.replicaBefore != null) {
			this.replicaCpuSeconds += replicaAfter.cpuSeconds() - this.replicaBefore.cpuSeconds();
		}
		after.callsSince(this.before).forEach((name, n) -> this.commands.merge(name, n, Long::sum));
		this.measuredLatencies.add(interval);
	}

	@TearDown(Level.Trial)
	public void endTrial() {
		try {
			writeCounters();
		}
		finally {
			if (this.lockLibrary != null) {
				this.lockLibrary.close();
			}
			counters().close();
			if (this.replicaCounters != null) {
				this.replicaCounters.close();
			}
		}
	}

	/** Per-thread state: the thread's cycle on its key. */
	@State(Scope.Thread)
	public static class Worker {

		@Nullable LockCycle cycle;

		@Setup(Level.Trial)
		public void open(LockCycleBenchmark benchmark, ThreadParams thread) {
			int index = thread.getThreadIndex();
			String key = benchmark.keys.equals("contended") ? "shared" : "t-" + index;
			this.cycle = benchmark.library().open(key, index);
		}

	}

	/** One attempt: acquire without waiting and, when acquired, release. */
	@Benchmark
	public boolean cycle(Worker worker) {
		long start = System.nanoTime();
		boolean ok = worker.cycle.run();
		this.latencies.recordValue(System.nanoTime() - start);
		this.attempts.increment();
		if (ok) {
			this.acquired.increment();
		}
		return ok;
	}

	LockLibrary library() {
		if (this.lockLibrary == null) {
			throw new IllegalStateException("trial not set up");
		}
		return this.lockLibrary;
	}

	private RedisCounters counters() {
		if (this.counters == null) {
			throw new IllegalStateException("trial not set up");
		}
		return this.counters;
	}

	private void writeCounters() {
		Map<String, Object> line = new LinkedHashMap<>();
		line.put("round", Integer.getInteger("bench.round", 1));
		line.put("library", this.library);
		line.put("keys", this.keys);
		line.put("threads", this.threads);
		line.put("attempts", this.measuredAttempts);
		line.put("acquired", this.measuredAcquired);
		line.put("measuredNanos", this.measuredNanos);
		line.put("redisCpuSeconds", this.redisCpuSeconds);
		line.put("replicaCpuSeconds", this.replicaCpuSeconds);
		line.put("clientCpuNanos", this.clientCpuNanos);
		line.put("redisCommands", RedisCounters.clientCommands(this.commands));
		line.put("commandsByName", this.commands);
		Map<String, Double> latency = new LinkedHashMap<>();
		latency.put("p50", micros(this.measuredLatencies.getValueAtPercentile(50)));
		latency.put("p90", micros(this.measuredLatencies.getValueAtPercentile(90)));
		latency.put("p99", micros(this.measuredLatencies.getValueAtPercentile(99)));
		latency.put("p999", micros(this.measuredLatencies.getValueAtPercentile(99.9)));
		latency.put("max", micros(this.measuredLatencies.getMaxValue()));
		line.put("latencyMicros", latency);
		Path out = Path.of(System.getProperty("bench.out", "target/bench"), "counters.jsonl");
		try {
			Files.createDirectories(out.getParent());
			Files.writeString(out, JsonMapper.builder().build().writeValueAsString(line) + "\n",
					StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static double micros(long nanos) {
		return Math.round(nanos / 100.0) / 10.0;
	}

	private static long processCpuNanos() {
		if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
			return os.getProcessCpuTime();
		}
		return 0;
	}

}
