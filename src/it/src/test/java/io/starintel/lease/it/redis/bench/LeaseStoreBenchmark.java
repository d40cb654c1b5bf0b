package io.starintel.lease.it.redis.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.Identifiers;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecordJson;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.it.redis.RedisServers;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.redis.RedisKeys;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.test.RedisServerProcess;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Acquire+release benchmark of the Redis lease store against a local Redis (not a test: surefire does not run it;
 * {@code scripts/bench.sh --store-harness} builds and runs it; the JMH module {@code lease-benchmarks} compares the store with its peers). Three paths in the same run, through the same kind of shared Lettuce
 * connection of a Spring Data Redis {@link LettuceConnectionFactory}:
 * <ol>
 * <li>{@code store}: {@link RedisLeaseStore#acquire} + {@link RedisLeaseStore#release}, requests built as a caller
 * would (fresh request ids);</li>
 * <li>{@code same-scripts}: bare EVALSHA of the store's very same Lua scripts ({@code prelude.lua + "\n" +
 * acquire.lua / release.lua}) with precomputed arguments, only the per-cycle ids and the deadline filled in, and the
 * fencing token taken from the reply: what is left is the store's Java-side overhead;</li>
 * <li>{@code minimal}: bare EVALSHA of minimal scripts (fenced acquire: {@code SET NX PX} + {@code INCR} counter;
 * release: compare-and-delete), the reference of ENVIRONMENT.md.</li>
 * </ol>
 * Each path runs with 1 and 8 threads, on distinct keys (each thread its own target) and on one contended key
 * (conflicts counted separately, latency of successful cycles only). Cycles/s and p50/p99 cycle latency come from
 * per-thread sorted arrays. Then it proves one round trip per operation: on a private {@code redis-server} started
 * on a free loopback port, N store cycles must show exactly 2N EVALSHA in {@code INFO commandstats}, no EVAL, and
 * in {@code MONITOR} no command at all from the store's connection but those 2N EVALSHA; a Lettuce command listener
 * counts the same on the client side. Last, it times the Java-side steps the store repeats per call (SHA-256 key
 * digests, request digests, id generation) to explain the overhead.
 *
 * <p>System properties: {@code bench.seconds} (measured seconds per case, default 5), {@code bench.warmup} (warm-up
 * seconds per case, default 2), {@code bench.threads} (default {@code 1,8}), {@code bench.check} (cycles of the
 * round-trip check, default 1000). Redis: {@code STARINTEL_REDIS_URL} or {@code redis://127.0.0.1:6379}. Every key
 * a case writes is removed after the case (SCAN of that case's own hash tag + UNLINK).
 */
public final class LeaseStoreBenchmark {

	private static final String TENANT = "tenant-bench";

	private static final LeasePolicy POLICY = RedisServers.POLICY;

	private static final long TTL_MS = 60_000;

	private static final long PHYSICAL_GRACE_MS = Duration.ofMinutes(5).toMillis();

	private static final String MINIMAL_ACQUIRE = """
			-- minimal fenced acquire: KEYS[1] lock, KEYS[2] counter; ARGV[1] owner token, ARGV[2] ttl ms
			if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
			  return redis.call('INCR', KEYS[2])
			end
			return 0
			""";

	private static final String MINIMAL_RELEASE = """
			-- compare-and-delete release: KEYS[1] lock; ARGV[1] owner token
			if redis.call('GET', KEYS[1]) == ARGV[1] then
			  return redis.call('DEL', KEYS[1])
			end
			return 0
			""";

	private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) java.lang.management
		.ManagementFactory.getThreadMXBean();

	private static final byte[] ACQUIRED = bytes("lease_acquired");

	private static final byte[] CONFLICT = bytes("lease_conflict");

	private static final byte[] RELEASED = bytes("lease_released");

	private static final byte[] FENCING_TOKEN = bytes("fencing_token");

	private final int seconds = Integer.getInteger("bench.seconds", 5);

	private final int warmup = Integer.getInteger("bench.warmup", 2);

	private final int[] threadCounts = Arrays.stream(System.getProperty("bench.threads", "1,8").split(","))
		.mapToInt((t) -> Integer.parseInt(t.trim()))
		.toArray();

	private final int checkCycles = Integer.getInteger("bench.check", 1000);

	private final String run = UUID.randomUUID().toString().substring(0, 8);

	private int programs;

	private LeaseStoreBenchmark() {
	}

	public static void main(String[] args) throws Exception {
		new LeaseStoreBenchmark().runAll();
		System.exit(0);
	}

	private void runAll() throws Exception {
		URI uri = RedisServers.uri();
		System.out.printf(Locale.ROOT, "# lease store benchmark: redis %s, %d s per case (+%d s warm-up), threads %s, "
				+ "java %s, %d cpus, %s%n", uri, this.seconds, this.warmup, Arrays.toString(this.threadCounts),
				System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), Instant.now());
		LettuceConnectionFactory factory = factory(uri.getHost(), uri.getPort(), null);
		List<Result> results = new ArrayList<>();
		Map<String, String> sampleRecord;
		try (RedisClient admin = RedisClient.create(RedisURI.create(uri.getHost(), uri.getPort()));
				StatefulRedisConnection<String, String> adminConnection = admin.connect()) {
			RedisCommands<String, String> redis = adminConnection.sync();
			System.out.println("# server: redis_version " + infoField(redis.info("server"), "redis_version"));
			Paths paths = new Paths(factory, redis);
			// JIT warm-up of every path before anything is measured
			for (BenchPath path : paths.all()) {
				runCase(path, 2, false, 5, 0, redis);
			}
				System.out.printf(Locale.ROOT, "%n%-13s %7s %-10s %11s %11s %9s %9s %10s %11s %10s%n", "path", "threads",
					"keys", "cycles/s", "conflicts/s", "p50 us", "p99 us", "cycles", "cpu us/att", "KiB/att");
			for (boolean contended : new boolean[] { false, true }) {
				for (int threads : this.threadCounts) {
					for (BenchPath path : paths.all()) {
						Result result = runCase(path, threads, contended, this.warmup, this.seconds, redis);
						results.add(result);
						System.out.println(result.row());
					}
				}
			}
			printRatios(results);
			sampleRecord = sampleRecordFields(factory, redis);
		}
		finally {
			factory.destroy();
		}
		roundTripCheck();
		javaSideCosts(sampleRecord);
	}

	// ---------------------------------------------------------------------------------------------------------
	// cases

	private Result runCase(BenchPath path, int threads, boolean contended, int warmupSeconds, int measureSeconds,
			RedisCommands<String, String> redis) throws Exception {
		String program = "bench-" + this.run + "-" + (this.programs++);
		List<Cycle> cycles = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			cycles.add(path.cycle(program, t, contended ? "hot" : "t-" + t));
		}
		long[][] latencies = new long[threads][];
		int[] counts = new int[threads];
		long[] conflicts = new long[threads];
		long[] cpu = new long[threads];
		long[] allocated = new long[threads];
		Throwable[] failures = new Throwable[threads];
		CountDownLatch ready = new CountDownLatch(threads);
		CountDownLatch go = new CountDownLatch(1);
		long[] window = new long[2];
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int index = t;
			Thread worker = new Thread(() -> {
				long[] lat = new long[1 << 16];
				int n = 0;
				long conflicted = 0;
				long cpuStart = -1;
				long allocatedStart = 0;
				try {
					Cycle cycle = cycles.get(index);
					ready.countDown();
					go.await();
					long start = window[0];
					long end = window[1];
					for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
						boolean acquired = cycle.run();
						long took = System.nanoTime() - now;
						if (now < start) {
							continue;
						}
						if (cpuStart < 0) {
							cpuStart = THREADS.getCurrentThreadCpuTime();
							allocatedStart = THREADS.getCurrentThreadAllocatedBytes();
						}
						if (!acquired) {
							conflicted++;
							continue;
						}
						if (n == lat.length) {
							lat = Arrays.copyOf(lat, n * 2);
						}
						lat[n++] = took;
					}
				}
				catch (Throwable ex) {
					failures[index] = ex;
				}
				cpu[index] = (cpuStart < 0) ? 0 : THREADS.getCurrentThreadCpuTime() - cpuStart;
				allocated[index] = (cpuStart < 0) ? 0 : THREADS.getCurrentThreadAllocatedBytes() - allocatedStart;
				latencies[index] = lat;
				counts[index] = n;
				conflicts[index] = conflicted;
			}, "bench-" + path.name() + "-" + t);
			workers.add(worker);
			worker.start();
		}
		ready.await();
		window[0] = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmupSeconds);
		window[1] = window[0] + TimeUnit.SECONDS.toNanos(measureSeconds);
		go.countDown();
		for (Thread worker : workers) {
			worker.join();
		}
		for (Throwable failure : failures) {
			if (failure != null) {
				throw new IllegalStateException(path.name() + " failed", failure);
			}
		}
		path.cleanUp(program, redis);
		int total = Arrays.stream(counts).sum();
		long[] all = new long[total];
		int offset = 0;
		for (int t = 0; t < threads; t++) {
			System.arraycopy(latencies[t], 0, all, offset, counts[t]);
			offset += counts[t];
		}
		Arrays.sort(all);
		long attempts = total + Arrays.stream(conflicts).sum();
		return new Result(path.name(), threads, contended, total, Arrays.stream(conflicts).sum(),
				Math.max(1, measureSeconds), percentile(all, 0.50), percentile(all, 0.99),
				(attempts == 0) ? 0 : Arrays.stream(cpu).sum() / attempts,
				(attempts == 0) ? 0 : Arrays.stream(allocated).sum() / attempts);
	}

	private static long percentile(long[] sorted, double p) {
		if (sorted.length == 0) {
			return 0;
		}
		return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
	}

	private static void printRatios(List<Result> results) {
		System.out.printf(Locale.ROOT, "%n%-8s %-10s %14s %16s %12s %14s %18s%n", "threads", "keys", "store/same",
				"store/minimal", "same/minimal", "p50 store/same", "cpu us store-same");
		Map<String, Map<String, Result>> byCase = new LinkedHashMap<>();
		for (Result result : results) {
			byCase.computeIfAbsent(result.threads + "|" + result.contended, (k) -> new LinkedHashMap<>())
				.put(result.path, result);
		}
		byCase.forEach((key, paths) -> {
			Result store = paths.get("store");
			Result same = paths.get("same-scripts");
			Result minimal = paths.get("minimal");
			System.out.printf(Locale.ROOT, "%-8d %-10s %13.1f%% %15.1f%% %11.1f%% %13.1f%% %18.1f%n", store.threads,
					store.keys(), overhead(same, store), overhead(minimal, store), overhead(minimal, same),
					100.0 * store.p50 / same.p50 - 100.0, (store.cpuPerAttempt - same.cpuPerAttempt) / 1000.0);
		});
		System.out.println("(overhead = extra time per cycle of the first path over the second, from cycles/s: "
				+ "rate(second) / rate(first) - 1; cpu and KiB = CPU time and heap allocation of the calling thread "
				+ "per attempt, the Lettuce event loop not included)");
	}

	private static double overhead(Result reference, Result path) {
		return 100.0 * ((double) reference.cycles / path.cycles - 1.0);
	}

	/** One measured case. */
	private record Result(String path, int threads, boolean contended, long cycles, long conflicts, int seconds,
			long p50, long p99, long cpuPerAttempt, long bytesPerAttempt) {

		String keys() {
			return this.contended ? "contended" : "distinct";
		}

		String row() {
			return String.format(Locale.ROOT, "%-13s %7d %-10s %11.0f %11.0f %9.1f %9.1f %10d %11.1f %10.1f", this.path,
					this.threads, keys(), (double) this.cycles / this.seconds, (double) this.conflicts / this.seconds,
					this.p50 / 1000.0, this.p99 / 1000.0, this.cycles, this.cpuPerAttempt / 1000.0,
					this.bytesPerAttempt / 1024.0);
		}

	}

	/** One thread's acquire (+ release when acquired); {@code false} on a conflict. */
	@FunctionalInterface
	private interface Cycle {

		boolean run() throws Exception;

	}

	/** A measured path. */
	private interface BenchPath {

		String name();

		Cycle cycle(String program, int thread, String target);

		/** Removes every key the path wrote for the program. */
		void cleanUp(String program, RedisCommands<String, String> redis);

	}

	// ---------------------------------------------------------------------------------------------------------
	// the three paths

	/** The three paths on one connection factory. */
	private static final class Paths {

		private final BenchPath store;

		private final BenchPath sameScripts;

		private final BenchPath minimal;

		Paths(LettuceConnectionFactory factory, RedisCommands<String, String> redis) {
			RedisLeaseStore leaseStore = new RedisLeaseStore(factory, POLICY, LeaseAlerts.LOG);
			RedisClusterAsyncCommands<byte[], byte[]> commands = nativeCommands(factory);
			Script acquire = Script.of(storeScript("acquire.lua"), redis);
			Script release = Script.of(storeScript("release.lua"), redis);
			Script minimalAcquire = Script.of(MINIMAL_ACQUIRE, redis);
			Script minimalRelease = Script.of(MINIMAL_RELEASE, redis);
			this.store = new StorePath(leaseStore);
			this.sameScripts = new SameScriptsPath(commands, acquire, release);
			this.minimal = new MinimalPath(commands, minimalAcquire, minimalRelease);
		}

		List<BenchPath> all() {
			return List.of(this.store, this.sameScripts, this.minimal);
		}

	}

	private static RedisClusterAsyncCommands<byte[], byte[]> nativeCommands(LettuceConnectionFactory factory) {
		// the factory shares one native connection: this is the very connection the store's calls use
		LettuceConnection connection = (LettuceConnection) factory.getConnection();
		return connection.getNativeConnection();
	}

	/** Path 1: the store, requests built as a caller builds them. */
	private record StorePath(RedisLeaseStore store) implements BenchPath {

		@Override
		public String name() {
			return "store";
		}

		@Override
		public Cycle cycle(String program, int thread, String target) {
			LockIdentity identity = identity(program, target);
			LeaseOwner owner = new LeaseOwner("bench-" + thread, "client_1", "key_1", "instance-" + thread);
			return () -> {
				LeaseResult acquired = this.store.acquire(new AcquireRequest(identity, Identifiers.generate("request"),
						Instant.now().plusSeconds(30), owner, TTL_MS, 300_000, "execution_1", "job_1", "trace_1",
						LeaseMetadata.empty()));
				if (acquired.code() == ResultCode.LEASE_CONFLICT) {
					return false;
				}
				require(acquired.code() == ResultCode.LEASE_ACQUIRED, "acquire: " + acquired.code());
				LeaseResult released = this.store.release(new ReleaseRequest(acquired.lease().handle(),
						Identifiers.generate("request"), Instant.now().plusSeconds(30)));
				require(released.code() == ResultCode.LEASE_RELEASED, "release: " + released.code());
				return true;
			};
		}

		@Override
		public void cleanUp(String program, RedisCommands<String, String> redis) {
			unlinkMatching(redis, new RedisKeys(identity(program, "x").scope()).base() + "*");
		}

	}

	/**
	 * Path 2: the store's own scripts as bare EVALSHA. Arguments are the store's ARGV layout, precomputed once per
	 * thread; per cycle only the request/lease ids, the idempotency keys (a counter, not a SHA-1: the scripts take
	 * KEYS as given), the deadline and the token from the acquire reply change.
	 */
	private record SameScriptsPath(RedisClusterAsyncCommands<byte[], byte[]> commands, Script acquire,
			Script release) implements BenchPath {

		@Override
		public String name() {
			return "same-scripts";
		}

		@Override
		public Cycle cycle(String program, int thread, String target) {
			LockIdentity identity = identity(program, target);
			RedisKeys keys = RedisKeys.of(identity);
			String digest = identity.keyDigest();
			List<String> common = new ArrayList<>(List.of("0", keys.base(), digest, identity.lockKey()));
			common.addAll(identity.components());
			common.addAll(List.of(Integer.toString(POLICY.historyLength()),
					Long.toString(POLICY.historyRetention().toMillis())));
			String principal = "bench-" + thread;
			String instance = "instance-" + thread;
			List<String> acquireArgs = new ArrayList<>(common);
			acquireArgs.addAll(List.of("digest-" + thread, Long.toString(POLICY.idempotencyRetention().toMillis()),
					Long.toString(POLICY.maximumDeadline().toMillis()), Long.toString(POLICY.clockSkewBound().toMillis()),
					"lease", Long.toString(TTL_MS), "300000", Long.toString(PHYSICAL_GRACE_MS), principal, "client_1",
					"key_1", instance, "execution_1", "job_1", "trace_1", "request", LeaseMetadata.empty().json()));
			List<String> releaseArgs = new ArrayList<>(common);
			releaseArgs.addAll(List.of("digest-r-" + thread, Long.toString(POLICY.idempotencyRetention().toMillis()),
					Long.toString(POLICY.maximumDeadline().toMillis()), "lease", principal, instance, "0"));
			byte[][] acquireTemplate = toBytes(acquireArgs);
			byte[][] releaseTemplate = toBytes(releaseArgs);
			byte[] leaseKey = bytes(keys.lease(digest));
			byte[] fenceKey = bytes(keys.fence(digest));
			String idemPrefix = keys.base() + "idem:b" + thread + "-";
			String idPrefix = "b" + thread + "-";
			long[] counter = { 0 };
			return () -> {
				long n = counter[0]++;
				byte[] deadline = bytes(Long.toString(System.currentTimeMillis() + 30_000));
				byte[] leaseId = bytes("lease_" + idPrefix + n);
				byte[][] args = acquireTemplate.clone();
				args[0] = deadline;
				args[17] = leaseId;
				args[28] = bytes("request_a" + idPrefix + n);
				List<Object> reply = this.commands.<List<Object>>evalsha(this.acquire.sha(), ScriptOutputType.MULTI,
						new byte[][] { leaseKey, fenceKey, bytes(idemPrefix + "a" + n) }, args)
					.get(10, TimeUnit.SECONDS);
				byte[] code = (byte[]) reply.get(0);
				if (Arrays.equals(code, CONFLICT)) {
					return false;
				}
				require(Arrays.equals(code, ACQUIRED), "acquire: " + new String(code, StandardCharsets.UTF_8));
				byte[][] release = releaseTemplate.clone();
				release[0] = deadline;
				release[16] = leaseId;
				release[19] = field(reply, FENCING_TOKEN);
				List<Object> released = this.commands.<List<Object>>evalsha(this.release.sha(), ScriptOutputType.MULTI,
						new byte[][] { leaseKey, bytes(idemPrefix + "r" + n) }, release)
					.get(10, TimeUnit.SECONDS);
				require(Arrays.equals((byte[]) released.get(0), RELEASED), "release");
				return true;
			};
		}

		private static byte[] field(List<Object> reply, byte[] name) {
			for (int i = 6; i + 1 < reply.size(); i += 2) {
				if (Arrays.equals((byte[]) reply.get(i), name)) {
					return (byte[]) reply.get(i + 1);
				}
			}
			throw new IllegalStateException("no fencing_token in the reply");
		}

		@Override
		public void cleanUp(String program, RedisCommands<String, String> redis) {
			unlinkMatching(redis, new RedisKeys(identity(program, "x").scope()).base() + "*");
		}

	}

	/** Path 3: minimal fenced acquire + compare-and-delete release, as bare EVALSHA. */
	private record MinimalPath(RedisClusterAsyncCommands<byte[], byte[]> commands, Script acquire,
			Script release) implements BenchPath {

		@Override
		public String name() {
			return "minimal";
		}

		@Override
		public Cycle cycle(String program, int thread, String target) {
			String base = "bench-minimal:{" + program + "}:";
			byte[][] keys = { bytes(base + "lock:" + target), bytes(base + "fence:" + target) };
			byte[][] releaseKeys = { keys[0] };
			byte[] ttl = bytes(Long.toString(TTL_MS));
			String idPrefix = "lease_b" + thread + "-";
			long[] counter = { 0 };
			return () -> {
				byte[] owner = bytes(idPrefix + counter[0]++);
				Long token = this.commands
					.<Long>evalsha(this.acquire.sha(), ScriptOutputType.INTEGER, keys, owner, ttl)
					.get(10, TimeUnit.SECONDS);
				if (token == 0) {
					return false;
				}
				Long deleted = this.commands
					.<Long>evalsha(this.release.sha(), ScriptOutputType.INTEGER, releaseKeys, owner)
					.get(10, TimeUnit.SECONDS);
				require(deleted == 1, "release");
				return true;
			};
		}

		@Override
		public void cleanUp(String program, RedisCommands<String, String> redis) {
			unlinkMatching(redis, "bench-minimal:{" + program + "}:*");
		}

	}

	/** A script and its SHA-1, loaded on the server before it is used. */
	private record Script(String text, String sha) {

		static Script of(String text, RedisCommands<String, String> redis) {
			String sha = redis.scriptLoad(text);
			require(sha.equals(sha1(text)), "SCRIPT LOAD sha");
			return new Script(text, sha);
		}

	}

	// ---------------------------------------------------------------------------------------------------------
	// one round trip per operation

	private void roundTripCheck() throws Exception {
		System.out.printf(Locale.ROOT, "%n# one round trip per operation: %d store acquire+release cycles%n",
				this.checkCycles);
		Path dir = Files.createTempDirectory("lease-bench-redis");
		int port = RedisServerProcess.freePort();
		RedisServerProcess server = RedisServerProcess.start(Path.of("redis-server"), port, dir);
		Map<String, LongAdder> clientCommands = new ConcurrentHashMap<>();
		AtomicBoolean counting = new AtomicBoolean();
		CommandListener listener = new CommandListener() {
			@Override
			public void commandStarted(CommandStartedEvent event) {
				if (counting.get()) {
					clientCommands.computeIfAbsent(event.getCommand().getType().toString(), (k) -> new LongAdder())
						.increment();
				}
			}
		};
		try (RedisClient admin = RedisClient.create(RedisURI.create("127.0.0.1", port))) {
			StatefulRedisConnection<String, String> adminConnection = admin.connect();
			RedisCommands<String, String> redis = adminConnection.sync();
			LettuceConnectionFactory factory = factory("127.0.0.1", port, listener);
			try {
				RedisLeaseStore store = new RedisLeaseStore(factory, POLICY, LeaseAlerts.LOG);
				Cycle cycle = new StorePath(store).cycle("bench-check-" + this.run, 0, "t-0");
				// the first call meets an empty script cache (NOSCRIPT, then EVAL): not part of the count
				require(cycle.run(), "first cycle");
				Map<String, Long> before = commandStats(redis);
				try (Monitor monitor = new Monitor(port)) {
					counting.set(true);
					for (int i = 0; i < this.checkCycles; i++) {
						require(cycle.run(), "cycle");
					}
					counting.set(false);
					Map<String, Long> after = commandStats(redis);
					List<String> lines = monitor.linesUntilMarker(redis);
					long evalsha = after.getOrDefault("evalsha", 0L) - before.getOrDefault("evalsha", 0L);
					long eval = after.getOrDefault("eval", 0L) - before.getOrDefault("eval", 0L);
					System.out.printf(Locale.ROOT, "server INFO commandstats: cmdstat_evalsha +%d, cmdstat_eval +%d "
							+ "(expected +%d and +0)%n", evalsha, eval, 2L * this.checkCycles);
					String storeClient = null;
					Map<String, Long> byCommand = new LinkedHashMap<>();
					long fromStore = 0;
					long fromLua = 0;
					for (String line : lines) {
						int open = line.indexOf('[');
						int close = line.indexOf(']', open);
						if (open < 0 || close < 0) {
							continue;
						}
						String client = line.substring(open + 1, close);
						if (client.endsWith(" lua")) {
							fromLua++;
							continue;
						}
						String command = line.substring(close + 2).split(" ", 2)[0].replace("\"", "").toUpperCase(Locale.ROOT);
						if (command.equals("INFO") || command.equals("ECHO")) {
							continue; // the checker's own connection
						}
						if (storeClient == null) {
							storeClient = client;
						}
						require(client.equals(storeClient), "a second client issued commands: " + line);
						fromStore++;
						byCommand.merge(command, 1L, Long::sum);
					}
					System.out.printf(Locale.ROOT, "server MONITOR: %d commands from the store's connection %s: %s "
							+ "(plus %d commands run inside the scripts)%n", fromStore, storeClient, byCommand, fromLua);
					Map<String, Long> client = new LinkedHashMap<>();
					clientCommands.forEach((k, v) -> client.put(k, v.sum()));
					System.out.printf(Locale.ROOT, "client (Lettuce command listener): %s%n", client);
					boolean ok = evalsha == 2L * this.checkCycles && eval == 0 && fromStore == 2L * this.checkCycles
							&& byCommand.keySet().equals(java.util.Set.of("EVALSHA"))
							&& client.equals(Map.of("EVALSHA", 2L * this.checkCycles));
					System.out.println(ok ? "ONE ROUND TRIP PER OPERATION: yes (exactly one EVALSHA per acquire and "
							+ "per release, nothing else)" : "ONE ROUND TRIP PER OPERATION: NO (see the counts above)");
				}
			}
			finally {
				factory.destroy();
				adminConnection.close();
			}
		}
		finally {
			server.stop();
			try (var files = Files.walk(dir)) {
				files.sorted(java.util.Comparator.reverseOrder()).forEach((p) -> p.toFile().delete());
			}
		}
	}

	private static Map<String, Long> commandStats(RedisCommands<String, String> redis) {
		Map<String, Long> stats = new LinkedHashMap<>();
		for (String line : redis.info("commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_")) {
				String name = line.substring("cmdstat_".length(), line.indexOf(':'));
				String calls = line.substring(line.indexOf("calls=") + 6, line.indexOf(',', line.indexOf("calls=")));
				stats.put(name, Long.parseLong(calls));
			}
		}
		return stats;
	}

	/** A raw MONITOR connection that collects the lines it receives. */
	private static final class Monitor implements AutoCloseable {

		private final Socket socket;

		private final List<String> lines = new ArrayList<>();

		private final Thread reader;

		private final String marker = "lease-bench-marker-" + UUID.randomUUID();

		private final CountDownLatch markerSeen = new CountDownLatch(1);

		Monitor(int port) throws IOException {
			this.socket = new Socket(InetAddress.getLoopbackAddress(), port);
			OutputStream out = this.socket.getOutputStream();
			BufferedReader in = new BufferedReader(
					new InputStreamReader(this.socket.getInputStream(), StandardCharsets.UTF_8));
			out.write(bytes("MONITOR\r\n"));
			out.flush();
			require("+OK".equals(in.readLine()), "MONITOR");
			this.reader = new Thread(() -> {
				try {
					for (String line = in.readLine(); line != null; line = in.readLine()) {
						synchronized (this.lines) {
							this.lines.add(line);
						}
						if (line.contains(this.marker)) {
							this.markerSeen.countDown();
						}
					}
				}
				catch (IOException ex) {
					// closed
				}
			}, "bench-monitor");
			this.reader.setDaemon(true);
			this.reader.start();
		}

		List<String> linesUntilMarker(RedisCommands<String, String> redis) throws InterruptedException {
			redis.echo(this.marker);
			require(this.markerSeen.await(10, TimeUnit.SECONDS), "MONITOR marker");
			synchronized (this.lines) {
				return new ArrayList<>(this.lines);
			}
		}

		@Override
		public void close() throws IOException {
			this.socket.close();
		}

	}

	// ---------------------------------------------------------------------------------------------------------
	// Java-side costs the store repeats per call

	/** The fields of a real acquired record (as a reply carries them), to time the store's reply parsing. */
	private Map<String, String> sampleRecordFields(LettuceConnectionFactory factory, RedisCommands<String, String> redis) {
		RedisLeaseStore store = new RedisLeaseStore(factory, POLICY, LeaseAlerts.LOG);
		String program = "bench-" + this.run + "-sample";
		LeaseResult acquired = store.acquire(new AcquireRequest(identity(program, "t-0"), Identifiers.generate("request"),
				Instant.now().plusSeconds(30), new LeaseOwner("bench-0", "client_1", "key_1", "instance-0"), TTL_MS,
				300_000, "execution_1", "job_1", "trace_1", LeaseMetadata.empty()));
		require(acquired.code() == ResultCode.LEASE_ACQUIRED, "sample acquire");
		Map<String, String> fields = new LinkedHashMap<>();
		LeaseRecordJson.toFields(acquired.lease()).forEach((k, v) -> fields.put(k, String.valueOf(v)));
		store.release(new ReleaseRequest(acquired.lease().handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(30)));
		new StorePath(store).cleanUp(program, redis);
		return fields;
	}

	private void javaSideCosts(Map<String, String> recordFields) {
		System.out.printf(Locale.ROOT, "%n# Java-side unit costs (1 thread; per call: wall ns, cpu ns, bytes allocated)%n");
		LockIdentity identity = identity("bench-costs", "t-0");
		AcquireRequest request = new AcquireRequest(identity, Identifiers.generate("request"),
				Instant.now().plusSeconds(30), new LeaseOwner("bench-0", "client_1", "key_1", "instance-0"), TTL_MS,
				300_000, "execution_1", "job_1", "trace_1", LeaseMetadata.empty());
		Map<String, java.util.function.Supplier<Object>> steps = new LinkedHashMap<>();
		steps.put("LockIdentity.keyDigest() (SHA-256)", identity::keyDigest);
		steps.put("LockIdentity.lockKey() (SHA-256)", identity::lockKey);
		steps.put("RedisKeys.of(identity) (scope + hashTag SHA-256)", () -> RedisKeys.of(identity));
		steps.put("AcquireRequest.digest() (lockKey + SHA-256)", request::digest);
		steps.put("RedisKeys.idempotencyHash (SHA-1)",
				() -> RedisKeys.idempotencyHash(Operation.ACQUIRE.wireName(), "k", "p", "r"));
		steps.put("Identifiers.generate (SecureRandom)", () -> Identifiers.generate("lease"));
		steps.put("LockIdentity.of (validation)", () -> identity("bench-costs", "t-0"));
		steps.put("LeaseRecordJson.fromFields (reply -> LeaseRecord)", () -> LeaseRecordJson.fromFields(recordFields));
		steps.put("LeaseMetadata.parse(\"{}\") (Jackson)", () -> LeaseMetadata.parse("{}"));
		Object sink = null;
		for (Map.Entry<String, java.util.function.Supplier<Object>> step : steps.entrySet()) {
			// one second of warm-up, then one measured second
			for (long end = System.nanoTime() + 1_000_000_000L; System.nanoTime() < end;) {
				sink = step.getValue().get();
			}
			long n = 0;
			long start = System.nanoTime();
			long cpuStart = THREADS.getCurrentThreadCpuTime();
			long allocatedStart = THREADS.getCurrentThreadAllocatedBytes();
			for (long end = start + 1_000_000_000L; System.nanoTime() < end; n++) {
				sink = step.getValue().get();
			}
			System.out.printf(Locale.ROOT, "%-52s %8.0f %8.0f %8.0f%n", step.getKey(),
					(System.nanoTime() - start) / (double) n, (THREADS.getCurrentThreadCpuTime() - cpuStart) / (double) n,
					(THREADS.getCurrentThreadAllocatedBytes() - allocatedStart) / (double) n);
		}
		if (sink == null) {
			System.out.println();
		}
	}

	// ---------------------------------------------------------------------------------------------------------
	// helpers

	private static LettuceConnectionFactory factory(String host, int port, CommandListener listener) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		factory.afterPropertiesSet();
		factory.start();
		if (listener != null) {
			// before the first connection exists, so that its command writer reports to the listener
			AbstractRedisClient client = factory.getRequiredNativeClient();
			client.addListener(listener);
		}
		return factory;
	}

	private static LockIdentity identity(String program, String target) {
		return LockIdentity.of(TENANT, program, "starintel-target", target, "usernamegen", "default", null);
	}

	private static void unlinkMatching(RedisCommands<String, String> redis, String pattern) {
		ScanCursor cursor = ScanCursor.INITIAL;
		ScanArgs args = ScanArgs.Builder.matches(pattern).limit(10_000);
		do {
			var page = redis.scan(cursor, args);
			if (!page.getKeys().isEmpty()) {
				redis.unlink(page.getKeys().toArray(new String[0]));
			}
			cursor = page;
		}
		while (!cursor.isFinished());
	}

	private static String storeScript(String fileName) {
		return resource("prelude.lua") + "\n" + resource(fileName);
	}

	private static String resource(String name) {
		try (InputStream in = RedisKeys.class.getResourceAsStream(name)) {
			require(in != null, "missing script resource " + name);
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String sha1(String text) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes(text)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static String infoField(String info, String field) {
		for (String line : info.split("\r?\n")) {
			if (line.startsWith(field + ":")) {
				return line.substring(field.length() + 1);
			}
		}
		return "?";
	}

	private static byte[][] toBytes(List<String> values) {
		byte[][] out = new byte[values.size()][];
		for (int i = 0; i < out.length; i++) {
			out[i] = bytes(values.get(i));
		}
		return out;
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static void require(boolean condition, String what) {
		if (!condition) {
			throw new IllegalStateException("benchmark check failed: " + what);
		}
	}

}
