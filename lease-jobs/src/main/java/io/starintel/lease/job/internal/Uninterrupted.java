package io.starintel.lease.job.internal;

import java.util.function.Supplier;

/**
 * The one rule for the interrupt flag around the aspect's own lease calls (acquire, its resolve, release): the call
 * runs with the flag cleared, and a flag that was set is set again when it returns.
 *
 * <p>Why: the store waits for a reply it has sent ({@code Future.get}), and a wait that finds the thread interrupted
 * ends at once. An interrupt that was set before the call therefore turned an acquire that Redis committed into
 * {@code lease_outcome_unknown} (the caller refused, the target locked for its TTL with no owner), made the resolve
 * that should have found it fail too, and turned a release that Redis applied into a WARN "it ends at its expiry" (a
 * job that restores its interrupt flag before returning, as it should). The interrupt is the caller's business, not
 * a reason to lose the answer of a call already on its way: every store call is bounded by its request deadline
 * ({@code starintel.lease.request.timeout}), so clearing the flag never makes the caller wait longer than that. The
 * store keeps its own contract: an interrupt that arrives while it waits (after submission) is still outcome-unknown,
 * and the acquirer then resolves it with the flag cleared again.
 */
final class Uninterrupted {

	private Uninterrupted() {
	}

	/** Runs {@code call} with the interrupt flag cleared; a flag that was set is set again afterwards. */
	static <T> T call(Supplier<T> call) {
		boolean interrupted = Thread.interrupted();
		try {
			return call.get();
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
