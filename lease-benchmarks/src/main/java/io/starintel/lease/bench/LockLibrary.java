package io.starintel.lease.bench;

/** A lock library under test, set up once per JMH trial (one forked JVM per cell). */
public interface LockLibrary extends AutoCloseable {

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
	 * The library of a benchmark parameter value.
	 * @param name the {@code library} parameter
	 * @param redis the Redis every library talks to
	 * @param cell a name unique to this run and cell, used in key names and log file names
	 */
	static LockLibrary create(String name, BenchRedis redis, String cell) {
		return switch (name) {
			case "reference" -> new ReferenceLibrary(redis, cell);
			case "store" -> new StarterLibrary(redis, cell, false);
			case "audited" -> new StarterLibrary(redis, cell, true);
			case "shedlock" -> new ShedLockLibrary(redis, cell);
			case "redisson-fenced" -> new RedissonLibrary(redis, cell);
			case "spring-integration" -> new IntegrationLibrary(redis, cell);
			default -> throw new IllegalArgumentException("unknown library " + name);
		};
	}

}
