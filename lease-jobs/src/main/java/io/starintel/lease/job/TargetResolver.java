package io.starintel.lease.job;

import java.util.UUID;

/**
 * Turns the target reference a {@link TargetLeased} expression yields into the trusted
 * {@code (target_namespace, target_id)}.
 *
 * <p>Contract: every identity component is resolved from trusted records; raw route text, user input and display
 * names must not participate directly. An implementation looks the reference up in its own records and throws
 * (any runtime exception) when it is not a known target; the method then does not run.
 */
@FunctionalInterface
public interface TargetResolver {

	/** Resolves a reference in a namespace; never returns {@code null}. */
	ResolvedTarget resolve(String targetNamespace, Object reference);

	/**
	 * The default: validates and passes the value through. Accepts only {@code CharSequence}, integral numbers and
	 * {@code UUID}s (never an arbitrary object's {@code toString()}); the lock identity then rejects
	 * non-canonical values naming {@code target_id}.
	 */
	TargetResolver PASS_THROUGH = (namespace, reference) -> {
		if (reference instanceof CharSequence || reference instanceof Long || reference instanceof Integer
				|| reference instanceof UUID) {
			return new ResolvedTarget(namespace, reference.toString());
		}
		throw new IllegalArgumentException("target reference must be a string, integer or UUID, not "
				+ ((reference != null) ? reference.getClass().getName() : "null"));
	};

}
