package io.starintel.lease.store;

import java.util.Objects;

import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.Reason;

/**
 * An operator alert raised by a store when it fails closed on something that needs a human: a corrupt record
 * (quarantined), a fencing counter near its numeric limit, or backend time behind the last issued token.
 *
 * <p>Carries no raw lock key, target id or record content: the scope, the operation and an opaque quarantine
 * reference (a key digest) are enough to find the evidence.
 *
 * @param reason what happened ({@link Reason#CORRUPT_RECORD}, {@link Reason#FENCING_COUNTER_EXHAUSTED},
 * {@link Reason#BACKEND_CLOCK_BEHIND})
 * @param scope the tenant and program
 * @param operation wire name of the operation that observed it ({@code acquire}, {@code renew}, {@code inspect},
 * {@code list}, {@code authorize_commit}, ...)
 * @param reference an opaque reference to the evidence (for a corrupt record: the quarantine key's digest part)
 */
public record LeaseAlert(Reason reason, ProgramScope scope, String operation, String reference) {

	/** Checks presence. */
	public LeaseAlert {
		Objects.requireNonNull(reason, "reason");
		Objects.requireNonNull(scope, "scope");
		Objects.requireNonNull(operation, "operation");
		Objects.requireNonNull(reference, "reference");
	}

}
