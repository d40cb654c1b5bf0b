package io.starintel.lease.audit.internal;

import java.util.concurrent.CountDownLatch;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditSink;

/** A sink that blocks every write until {@link #release()} (a sink stuck on a silent backend), for tests. */
public final class BlockedAuditSink implements AuditSink {

	private final CountDownLatch released = new CountDownLatch(1);

	@Override
	public void record(AuditEvent event) {
		try {
			this.released.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Lets every blocked and later write return. */
	public void release() {
		this.released.countDown();
	}

}
