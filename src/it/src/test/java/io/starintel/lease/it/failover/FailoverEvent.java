package io.starintel.lease.it.failover;

import java.util.Locale;

/**
 * One line of a failover load history: an operation a worker invoked and what it was answered, with the
 * monotonic time ({@code System.nanoTime()}, comparable across the worker JVMs on one Linux machine, where it is
 * {@code CLOCK_MONOTONIC}) of invocation and answer, and the backend times of the answer (decision, expiry).
 *
 * <p>Operations: {@link Op#ACQUIRE}, {@link Op#RENEW}, {@link Op#AUTHORIZE} (a commit authorization: the
 * "commit"), {@link Op#RELEASE}, {@link Op#REVOKE} (an admin); {@link Op#RESOLVE} (a worker resolving its own
 * outcome-unknown mutation, {@code ref} naming the resolved operation and {@code requestId} the resolved request);
 * {@link Op#CHECK_RESOLVE} (the harness resolving, after the run, a mutation acknowledged before a fault); and
 * {@link Op#FAULT} (a fault the harness injected: {@code target} says which, invoke/ack its start and end).
 *
 * <p>{@code code} is the result's wire name ({@code lease_acquired}, {@code lease_outcome_unknown}, ...), {@code
 * reason} its reason's ({@code none}, {@code reply_lost}, {@code recovery_required}, ...). Unknown values are
 * {@code -} (strings) and {@code -1} (numbers).
 */
public record FailoverEvent(String worker, long seq, Op op, String target, String requestId, String principal,
		String leaseId, long token, String code, String reason, long invokeNanos, long ackNanos, long decidedAtMs,
		long expiresAtMs, String ref) {

	public enum Op {

		ACQUIRE, RENEW, AUTHORIZE, RELEASE, REVOKE, RESOLVE, CHECK_RESOLVE, FAULT;

		/** The store operation's wire name ({@code acquire}, ...), for the mutations. */
		String operation() {
			return name().toLowerCase(Locale.ROOT);
		}

	}

	public static final String NONE = "-";

	/** Whether the answer was a success code ({@code lease_acquired}, ..., {@code lease_commit_authorized}). */
	public boolean success() {
		return switch (this.code) {
			case "lease_acquired", "lease_renewed", "lease_released", "lease_revoked", "lease_commit_authorized" -> true;
			default -> false;
		};
	}

	/** The operation whose result this event carries: {@code ref} for resolves, else the event's own. */
	public Op effectiveOp() {
		if ((this.op == Op.RESOLVE || this.op == Op.CHECK_RESOLVE) && !NONE.equals(this.ref)) {
			return Op.valueOf(this.ref);
		}
		return this.op;
	}

	/** The tab-separated line (no tabs or newlines occur in identifiers, codes or targets). */
	public String toLine() {
		return String.join("\t", this.worker, Long.toString(this.seq), this.op.name(), this.target, this.requestId,
				this.principal, this.leaseId, Long.toString(this.token), this.code, this.reason,
				Long.toString(this.invokeNanos), Long.toString(this.ackNanos), Long.toString(this.decidedAtMs),
				Long.toString(this.expiresAtMs), this.ref);
	}

	/** Parses {@link #toLine()}. */
	public static FailoverEvent parse(String line) {
		String[] f = line.split("\t", -1);
		if (f.length != 15) {
			throw new IllegalArgumentException("not a history line (" + f.length + " fields): " + line);
		}
		return new FailoverEvent(f[0], Long.parseLong(f[1]), Op.valueOf(f[2]), f[3], f[4], f[5], f[6],
				Long.parseLong(f[7]), f[8], f[9], Long.parseLong(f[10]), Long.parseLong(f[11]), Long.parseLong(f[12]),
				Long.parseLong(f[13]), f[14]);
	}

}
