package io.starintel.lease.audit.internal;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import io.starintel.lease.audit.PrincipalClass;

/**
 * Who is calling and under which correlation id, for the audit events of store calls made on this thread (the
 * admin and worker HTTP layers set it around each store call): principal, non-secret credential id and, for a worker,
 * the service instance its request named. Only used on the calling thread; it is never copied between threads.
 */
public record AuditContext(@Nullable String correlationId, PrincipalClass principalClass,
		@Nullable String principalId, @Nullable String credentialId, @Nullable String serviceInstanceId) {

	private static final ThreadLocal<AuditContext> CURRENT = new ThreadLocal<>();

	/** A caller without a service instance (an administrator). */
	public AuditContext(@Nullable String correlationId, PrincipalClass principalClass, @Nullable String principalId,
			@Nullable String credentialId) {
		this(correlationId, principalClass, principalId, credentialId, null);
	}

	/** The context of the current call, or {@code null}. */
	public static @Nullable AuditContext current() {
		return CURRENT.get();
	}

	/** Runs an action with this context set on the current thread. */
	public <T> T run(Supplier<T> action) {
		return ThreadBindings.run(CURRENT, this, action);
	}

}
