package io.starintel.lease.testing;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An unreachable lease backend, from {@link TargetLeaseTester#backendUnreachable()}: until {@link #close()}, the
 * calls it covers answer {@code lease_backend_unavailable} ({@code backend_unreachable}) without reaching the
 * store. Use it in try-with-resources; the tester also ends every outage after each test method.
 */
public final class Outage implements AutoCloseable {

	private final Runnable restore;

	private final AtomicBoolean active = new AtomicBoolean(true);

	Outage(Runnable restore) {
		this.restore = restore;
	}

	/** Whether the backend is still unreachable through this outage. */
	public boolean isActive() {
		return this.active.get();
	}

	/** Makes the backend reachable again (idempotent). */
	@Override
	public void close() {
		if (this.active.compareAndSet(true, false)) {
			this.restore.run();
		}
	}

}
