package io.starintel.lease.fence;

import java.time.Instant;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.Reason;

/**
 * Typed answer of {@link FenceGuard#authorize}: the store's result, the correlation id of the call, the deadline the
 * authorized write must respect and, when authorized, the {@link FenceStamp} to record with the write.
 *
 * <p>Contract: a commit is authorized only if lease validation linearizes before expiry; the acceptance point is
 * {@link #acceptedAt()} (backend time), not the write's response.
 */
public record FenceDecision(FenceOutcome outcome, Reason reason, String correlationId, Instant deadlineAt,
		@Nullable LeaseResult result, @Nullable FenceStamp stamp) {

	/** Whether the commit may proceed. */
	public boolean isAuthorized() {
		return this.outcome == FenceOutcome.ACCEPTED && this.stamp != null;
	}

	/** Backend time of the authorization, when authorized. */
	public Optional<Instant> acceptedAt() {
		return Optional.ofNullable(this.stamp).map(FenceStamp::acceptedAt);
	}

	/** The stamp of an authorized decision. */
	public FenceStamp requireStamp() {
		if (this.stamp == null) {
			throw new FencedWriteRejectedException(toWriteResult());
		}
		return this.stamp;
	}

	/** This decision as a fenced-write result (for refusals before any write). */
	public FencedWriteResult toWriteResult() {
		return new FencedWriteResult(this.outcome, this.reason, this.correlationId, null, this.stamp);
	}

}
