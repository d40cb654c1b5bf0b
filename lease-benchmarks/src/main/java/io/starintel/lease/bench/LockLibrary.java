package io.starintel.lease.bench;

import java.util.List;

/** A lock library under test, set up once per JMH trial (one forked JVM per cell). */
public interface LockLibrary extends AutoCloseable {

	/** Every library, in report order. */
	List<String> ALL = List.of("reference", "reference-wait", "bare-v3", "bare-v3-wait", "bare-v3-no-claims",
			"bare-v3-no-indexes", "bare-v3-no-history", "bare-v3-lock-only", "bare-v3-compact", "store",
			"store-nowait", "audited", "audited-stream", "job", "job-stream", "redisson-fenced", "redisson-lock",
			"shedlock", "spring-integration");

	/** The libraries of a run without a replica (the {@code -wait}/{@code -nowait} ones compare the replica wait). */
	List<String> DEFAULTS = List.of("reference", "bare-v3", "store", "audited", "job", "redisson-fenced",
			"redisson-lock", "shedlock", "spring-integration");

	/**
	 * The libraries of a run with a replica ({@code scripts/bench.sh --replica}): all but the prototypes of
	 * {@code bare-v3} and the {@code -stream} paths (named only when asked for, e.g.
	 * {@code -Dbench.libraries=reference,bare-v3,bare-v3-compact}).
	 */
	List<String> REPLICA_DEFAULTS = List.of("reference", "reference-wait", "bare-v3", "bare-v3-wait", "store",
			"store-nowait", "audited", "job", "redisson-fenced", "redisson-lock", "shedlock", "spring-integration");

	/**
	 * The cycle one benchmark thread runs.
	 * @param key the lock name: per thread ({@code distinct}) or the same for all threads ({@code contended})
	 * @param thread the JMH thread index
	 */
	LockCycle open(String key, int thread);

	/**
	 * Waits (at most 10 s) until this library's asynchronous audit pipeline has delivered everything queued, so that
	 * its audit work is counted where its cycles ran; false at once for a library without one.
	 */
	default boolean awaitAuditDelivered() {
		return false;
	}

	@Override
	void close();

	/**
	 * The library of a benchmark parameter value, on the run's client transport ({@link BenchTransport}).
	 * @param name the {@code library} parameter
	 * @param redis the Redis every library talks to
	 * @param cell a name unique to this run and cell, used in key names and log file names
	 */
	static LockLibrary create(String name, BenchRedis redis, String cell) {
		BenchTransport.apply();
		return switch (name) {
			case "reference" -> new ReferenceLibrary(redis, cell, false);
			case "reference-wait" -> new ReferenceLibrary(redis, cell, true);
			case "bare-v3" -> new BareV3Library(redis, cell, false);
			case "bare-v3-wait" -> new BareV3Library(redis, cell, true);
			case "bare-v3-no-claims", "bare-v3-no-indexes", "bare-v3-no-history", "bare-v3-lock-only",
					"bare-v3-compact" ->
				new BareV3Library(redis, cell, BareV3Library.Variant.of(name));
			case "store" -> new StarterLibrary(redis, cell, false);
			case "store-nowait" -> new StarterLibrary(redis, cell, false, false, false, false);
			case "audited" -> new StarterLibrary(redis, cell, true);
			case "audited-stream" -> new StarterLibrary(redis, cell, true, false, true, true);
			case "job" -> new JobLibrary(redis, cell, false);
			case "job-stream" -> new JobLibrary(redis, cell, true);
			case "shedlock" -> new ShedLockLibrary(redis, cell);
			case "redisson-fenced" -> new RedissonLibrary(redis, cell, true);
			case "redisson-lock" -> new RedissonLibrary(redis, cell, false);
			case "spring-integration" -> new IntegrationLibrary(redis, cell);
			default -> throw new IllegalArgumentException("unknown library " + name);
		};
	}

}
