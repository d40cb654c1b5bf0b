package io.starintel.lease.testing;

/** Which lease store a test runs on ({@link AutoConfigureLeaseTest#store()}). */
public enum LeaseTestStoreMode {

	/**
	 * Decide from the test: {@code starintel.lease.store} when the application sets it; else Redis when a Redis
	 * connection details bean exists (a {@code @ServiceConnection} Redis or Valkey container, a Docker Compose service)
	 * or {@code spring.data.redis.url|host|port|cluster.nodes|sentinel.master} is set; else the in-memory store.
	 */
	AUTO,

	/** The in-memory store, whatever Redis is configured (backend time under the test's control). */
	MEMORY,

	/** The application's Redis store (fails if {@code starintel.lease.store=memory}). */
	REDIS

}
