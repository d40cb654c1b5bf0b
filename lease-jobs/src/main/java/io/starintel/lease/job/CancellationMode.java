package io.starintel.lease.job;

import io.starintel.lease.context.LeaseContext;

/** How a leased job is told that its lease is lost (contract: lease loss signals cancellation immediately). */
public enum CancellationMode {

	/** Interrupt the thread running the method, or cancel its returned future. */
	INTERRUPT,

	/** Only mark the {@link LeaseContext} lost and publish the event; the job polls {@link LeaseContext#isLost()}. */
	NONE

}
