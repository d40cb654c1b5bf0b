package io.starintel.lease.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs {@link LockCycleBenchmark} once per thread count (one forked JVM per cell, the GC profiler on), writes JMH's
 * JSON to {@code ${bench.out}/jmh-t<threads>-r<round>.json} and then the markdown report ({@link BenchReport}).
 *
 * <p>System properties (all optional): {@code bench.out} (default {@code target/bench}), {@code bench.redis},
 * {@code bench.redisPerLibrary} ({@code library=url,...}: each library's own server, {@link BenchRedis#forLibrary}),
 * {@code bench.replicaPerLibrary} and {@code bench.replica} (their replicas, {@code --replica}), {@code bench.fillKeys}
 * and {@code bench.fillBytes} (other keys added to every server first, {@link BenchRedis#fill}),
 * {@code bench.run} (a short run id, used in key names), {@code bench.threads} ({@code 1,8}), {@code bench.libraries}
 * (comma list, default all), {@code bench.keys} ({@code distinct,contended}), {@code bench.warmup} (iterations, 2),
 * {@code bench.iterations} (3), {@code bench.seconds} (per iteration, 5), {@code bench.rounds} (whole runs one after another, 1; the
 * report then gives medians), {@code bench.heap} ({@code 1g}), {@code bench.jvmArgs} (extra forked-JVM options, space-separated, e.g.
 * {@code -XX:StartFlightRecording=filename=x.jfr}), {@code bench.noReport} (leave the report to the caller).
 */
public final class BenchMain {

	private BenchMain() {
	}

	public static void main(String[] args) throws Exception {
		Path out = Path.of(System.getProperty("bench.out", "target/bench"));
		Files.createDirectories(out);
		Files.deleteIfExists(out.resolve("counters.jsonl"));
		String run = System.getProperty("bench.run", "r" + Long.toString(System.currentTimeMillis() % 100_000_000L, 36));
		String heap = System.getProperty("bench.heap", "1g");
		List<String> forkArgs = new ArrayList<>(List.of("-Xms" + heap, "-Xmx" + heap, "-Dbench.out=" + out.toAbsolutePath(),
				"-Dbench.run=" + run));
		String redis = System.getProperty("bench.redis");
		if (redis != null) {
			forkArgs.add("-Dbench.redis=" + redis);
		}
		for (String property : List.of("bench.redisPerLibrary", "bench.replicaPerLibrary", "bench.replica")) {
			String value = System.getProperty(property);
			if (value != null && !value.isBlank()) {
				forkArgs.add("-D" + property + "=" + value);
			}
		}
		fill();
		String jvmArgs = System.getProperty("bench.jvmArgs");
		if (jvmArgs != null && !jvmArgs.isBlank()) {
			forkArgs.addAll(List.of(jvmArgs.trim().split("\\s+")));
		}
		int seconds = Integer.getInteger("bench.seconds", 5);
		int rounds = Integer.getInteger("bench.rounds", 1);
		for (int round = 1; round <= rounds; round++) {
			for (String threads : System.getProperty("bench.threads", "1,8").split(",")) {
				run(out, forkArgs, round, Integer.parseInt(threads.trim()), seconds);
			}
		}
		if (!Boolean.getBoolean("bench.noReport")) {
			BenchReport.main(new String[] { out.toString() });
		}
	}

	/** {@code bench.fillKeys} other keys into every server of the run, before any fork (see {@link BenchRedis#fill}). */
	private static void fill() {
		long count = Long.getLong("bench.fillKeys", 0);
		if (count <= 0) {
			return;
		}
		int bytes = Integer.getInteger("bench.fillBytes", 200);
		java.util.Set<String> done = new java.util.HashSet<>();
		for (String library : LockLibrary.ALL) {
			BenchRedis server = BenchRedis.forLibrary(library);
			if (done.add(server.url())) {
				System.out.printf("fill: %,d keys added to %s%n", server.fill(count, bytes), server.url());
			}
		}
	}

	private static void run(Path out, List<String> forkArgs, int round, int t, int seconds) throws Exception {
		List<String> args = new ArrayList<>(forkArgs);
		args.add("-Dbench.round=" + round);
		ChainedOptionsBuilder options = new OptionsBuilder()
			.include(LockCycleBenchmark.class.getName() + ".cycle")
			.threads(t)
			.forks(1)
			.warmupIterations(Integer.getInteger("bench.warmup", 2))
			.warmupTime(TimeValue.seconds(seconds))
			.measurementIterations(Integer.getInteger("bench.iterations", 3))
			.measurementTime(TimeValue.seconds(seconds))
			.addProfiler(GCProfiler.class)
			.jvmArgsAppend(args.toArray(String[]::new))
			.resultFormat(ResultFormatType.JSON)
			.result(out.resolve("jmh-t" + t + "-r" + round + ".json").toString());
		String libraries = System.getProperty("bench.libraries");
		if (libraries == null || libraries.isBlank()) {
			boolean replica = !System.getProperty("bench.replicaPerLibrary", "").isBlank()
					|| !System.getProperty("bench.replica", "").isBlank();
			libraries = String.join(",", replica ? LockLibrary.REPLICA_DEFAULTS : LockLibrary.DEFAULTS);
		}
		options.param("library", libraries.split(","));
		String keys = System.getProperty("bench.keys");
		if (keys != null && !keys.isBlank()) {
			options.param("keys", keys.split(","));
		}
		new Runner(options.build()).run();
	}

}
