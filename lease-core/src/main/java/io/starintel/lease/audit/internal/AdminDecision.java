package io.starintel.lease.audit.internal;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.internal.Identifiers;

/**
 * The administrative decision (force-release, revoke, recovery) being taken on this thread: its decision id, the
 * correlation id of the request that asked for it and when the operation began (whole milliseconds). The audit layer
 * binds it around the store call ({@link AdminDecisionAudit}; the admin endpoint around a recovery) and builds its own
 * event of the decision with the same decision id and start; a store that writes the decision's audit entry itself
 * (the Redis store's transition script) reads it, so that its durable entry and the synchronous event of the same
 * decision carry the same correlation id, decision id and latency. Only used on the calling thread; never copied
 * between threads.
 * @param decisionId the decision id ({@code dec_} + 26 random characters, the rule of {@link AuditEventBuilder})
 * @param correlationId the request's correlation id, or {@code null} (a call outside an HTTP request)
 * @param startedAt when the operation began, truncated to milliseconds (the latency's origin)
 */
public record AdminDecision(String decisionId, @Nullable String correlationId, Instant startedAt) {

	private static final ThreadLocal<AdminDecision> CURRENT = new ThreadLocal<>();

	/** Truncates the start to milliseconds (a store that computes the latency has only milliseconds). */
	public AdminDecision {
		startedAt = startedAt.truncatedTo(ChronoUnit.MILLIS);
	}

	/**
	 * A new decision begun at {@code startedAt}, with a fresh decision id and the correlation id of the bound
	 * {@link AuditContext} (none without one).
	 */
	public static AdminDecision begin(Instant startedAt) {
		AuditContext context = AuditContext.current();
		return begin((context != null) ? context.correlationId() : null, startedAt);
	}

	/** A new decision of the request {@code correlationId} begun at {@code startedAt}, with a fresh decision id. */
	public static AdminDecision begin(@Nullable String correlationId, Instant startedAt) {
		return new AdminDecision(newDecisionId(), correlationId, startedAt);
	}

	/** The decision bound to the current thread, or {@code null}. */
	public static @Nullable AdminDecision current() {
		return CURRENT.get();
	}

	/** The decision bound to the current thread, or a new one begun at {@code now} ({@link #begin}). */
	public static AdminDecision currentOrBegin(Instant now) {
		AdminDecision current = CURRENT.get();
		return (current != null) ? current : begin(now);
	}

	/** A new decision id: the one rule of every audit event's decision id ({@link AuditEventBuilder#build()}). */
	static String newDecisionId() {
		return Identifiers.generate("dec");
	}

	/** The start in epoch milliseconds. */
	public long startedAtMillis() {
		return this.startedAt.toEpochMilli();
	}

	/** Runs an action with this decision bound to the current thread. */
	public <T> T run(Supplier<T> action) {
		return ThreadBindings.run(CURRENT, this, action);
	}

}
