package io.starintel.lease.bench;

/** One acquire+release attempt of one thread on its key. */
@FunctionalInterface
public interface LockCycle {

	/**
	 * Acquires the key without waiting and, when acquired, releases it.
	 * @return whether the lock was acquired (a contended attempt that finds the key held returns {@code false})
	 * @throws IllegalStateException when the library answers anything but acquired, held-by-another or released
	 */
	boolean run();

}
