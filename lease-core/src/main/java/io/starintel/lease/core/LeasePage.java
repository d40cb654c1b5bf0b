package io.starintel.lease.core;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One page of a list operation: active leases in stable order and an opaque cursor for the next page
 * ({@code null} on the last page). Contract: stale index entries never surface as leases.
 */
public record LeasePage(ResultCode code, Reason reason, List<LeaseRecord> leases, @Nullable String nextCursor,
		@Nullable Instant decidedAt) {

	/** Copies the list. */
	public LeasePage {
		leases = List.copyOf(leases);
	}

	/** A failed list operation. */
	public static LeasePage failure(ResultCode code, Reason reason, @Nullable Instant decidedAt) {
		return new LeasePage(code, reason, List.of(), null, decidedAt);
	}

}
