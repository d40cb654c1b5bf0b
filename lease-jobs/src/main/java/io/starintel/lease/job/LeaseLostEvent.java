package io.starintel.lease.job;

import java.util.Objects;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.Reason;

/**
 * Published once when a leased job's lease is lost (renewal answered {@code lease_lost}, expiry, backend unavailable
 * past the safety margin, force-release, revoke, maximum lifetime reached). Spring applications receive it with
 * {@code @EventListener}; its {@link #toString()} never shows the lock key or target id.
 */
public final class LeaseLostEvent {

	private final LeaseContext context;

	private final Reason reason;

	/** An event for a context that was just marked lost. */
	public LeaseLostEvent(LeaseContext context, Reason reason) {
		this.context = Objects.requireNonNull(context, "context");
		this.reason = Objects.requireNonNull(reason, "reason");
	}

	/** The lost context (already marked lost). */
	public LeaseContext context() {
		return this.context;
	}

	/** Why it was lost. */
	public Reason reason() {
		return this.reason;
	}

	@Override
	public String toString() {
		return "LeaseLostEvent[" + this.context + ", reason=" + this.reason.wireName() + "]";
	}

}
