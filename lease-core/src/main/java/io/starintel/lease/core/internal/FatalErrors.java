package io.starintel.lease.core.internal;

/**
 * Which throwables a typed-result boundary (the lease service's store calls, the admin endpoint) must not answer:
 * the one home of the rule. A {@link VirtualMachineError} ({@link OutOfMemoryError}, {@link StackOverflowError},
 * {@link InternalError}) or a {@link ThreadDeath} says the JVM or the thread cannot go on; it is rethrown (after
 * what must end, such as an observation, has ended). Every other throwable of a call, an {@link Error} such as an
 * {@link AssertionError} or a {@link LinkageError} included, is a failed call and is answered with a typed result.
 */
public final class FatalErrors {

	private FatalErrors() {
	}

	/** Whether {@code failure} must be rethrown rather than answered. */
	@SuppressWarnings("removal")
	public static boolean isFatal(Throwable failure) {
		return failure instanceof VirtualMachineError || failure instanceof ThreadDeath;
	}

	/** Rethrows {@code failure} when it {@link #isFatal is fatal}; returns otherwise. */
	public static void rethrowIfFatal(Throwable failure) {
		if (isFatal(failure)) {
			throw (Error) failure;
		}
	}

}
