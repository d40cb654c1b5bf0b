package io.starintel.lease.context;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;

/**
 * The fencing context of one leased execution: lock identity, lease id, fencing token, expiry, execution, job and
 * trace ids.
 *
 * <p>Contract: possessing a lease id is not authority. This context is what fenced-write adapters authorize at
 * backend time before every commit; {@link #isLost()} is the local, advisory view (cancellation), never proof of
 * ownership. Once lost, a context never becomes valid again: re-acquisition creates a new context.
 */
public final class LeaseContext {

	private static final ThreadLocal<LeaseContext> CURRENT = new ThreadLocal<>();

	private final LeaseRecord lease;

	private volatile Instant expiresAt;

	private final AtomicReference<@Nullable Reason> lossReason = new AtomicReference<>();

	/** A context for a freshly acquired lease. */
	public LeaseContext(LeaseRecord lease) {
		this.lease = Objects.requireNonNull(lease, "lease");
		this.expiresAt = lease.expiresAt();
	}

	/** The context bound to the current thread, if a leased execution runs on it. */
	public static Optional<LeaseContext> current() {
		return Optional.ofNullable(CURRENT.get());
	}

	/** The context bound to the current thread, or {@code null}. */
	public static @Nullable LeaseContext currentOrNull() {
		return CURRENT.get();
	}

	/**
	 * Binds a context (or clears it when {@code null}) to the current thread and returns a scope that restores the
	 * previous binding when closed.
	 */
	public static Scope bind(@Nullable LeaseContext context) {
		LeaseContext previous = CURRENT.get();
		set(context);
		return () -> set(previous);
	}

	static void set(@Nullable LeaseContext context) {
		if (context == null) {
			CURRENT.remove();
		}
		else {
			CURRENT.set(context);
		}
	}

	/** The lease as acquired. */
	public LeaseRecord lease() {
		return this.lease;
	}

	/** The handle used to renew, release and authorize commits. */
	public LeaseHandle handle() {
		return this.lease.handle();
	}

	/** The canonical lock identity. */
	public LockIdentity identity() {
		return this.lease.identity();
	}

	/** The opaque lock key (never log it). */
	public String lockKey() {
		return this.lease.lockKey();
	}

	/** The lease id. */
	public String leaseId() {
		return this.lease.leaseId();
	}

	/** The fencing token, immutable for the lease. */
	public long fencingToken() {
		return this.lease.fencingToken();
	}

	/** The latest known expiry at backend time (moves with each successful renewal). */
	public Instant expiresAt() {
		return this.expiresAt;
	}

	/** The execution id. */
	public String executionId() {
		return this.lease.executionId();
	}

	/** The job id. */
	public String jobId() {
		return this.lease.jobId();
	}

	/** The trace id. */
	public String traceId() {
		return this.lease.traceId();
	}

	/** Whether the lease is known to be lost (advisory: fencing, not this flag, rejects commits). */
	public boolean isLost() {
		return this.lossReason.get() != null;
	}

	/** Why the lease was lost, if it was. */
	public Optional<Reason> lossReason() {
		return Optional.ofNullable(this.lossReason.get());
	}

	/**
	 * Whether this holder still believes it holds authority: not lost and, by the local clock, before the last
	 * known expiry. Advisory only; commits must go through a fenced-write adapter.
	 */
	public boolean holdsAuthority() {
		return !isLost() && Instant.now().isBefore(this.expiresAt);
	}

	/**
	 * Marks the lease lost; returns {@code true} only for the first call (so loss is signalled once).
	 */
	public boolean markLost(Reason reason) {
		return this.lossReason.compareAndSet(null, Objects.requireNonNull(reason, "reason"));
	}

	/** Records a successful renewal's new expiry (ignored once lost). */
	public void renewed(Instant newExpiresAt) {
		if (!isLost()) {
			this.expiresAt = newExpiresAt;
		}
	}

	/** Never prints the lock key or target id. */
	@Override
	public String toString() {
		return "LeaseContext[" + leaseId() + ", token=" + fencingToken() + ", lost=" + isLost() + "]";
	}

	/** A binding scope; closing it restores the previous binding. */
	@FunctionalInterface
	public interface Scope extends AutoCloseable {

		@Override
		void close();

	}

}
