package io.starintel.lease.context;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.RequestCaller;
import io.starintel.lease.core.ResultCode;

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

	private volatile long ttlMs;

	private volatile @Nullable LeaseContextRenewer renewer;

	private final AtomicReference<@Nullable Reason> lossReason = new AtomicReference<>();

	private final @Nullable AttachedKeyOperations service;

	/** A context for a freshly acquired lease, without attached keys ({@link #attachments()} answers unavailable). */
	public LeaseContext(LeaseRecord lease) {
		this(lease, null);
	}

	/** A context for a freshly acquired lease whose {@link #attachments()} go through {@code service}. */
	public LeaseContext(LeaseRecord lease, @Nullable AttachedKeyOperations service) {
		this.lease = Objects.requireNonNull(lease, "lease");
		this.expiresAt = lease.expiresAt();
		this.ttlMs = lease.ttlMs();
		this.service = service;
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

	/** Records a successful renewal with a new TTL: its expiry and the TTL later renewals keep (ignored once lost). */
	public void renewed(Instant newExpiresAt, long newTtlMs) {
		if (!isLost()) {
			this.ttlMs = newTtlMs;
			this.expiresAt = newExpiresAt;
		}
	}

	/** The lease's current TTL in milliseconds: the acquired one, or the last new TTL a renewal set. */
	public long ttlMs() {
		return this.ttlMs;
	}

	/**
	 * Renews the lease now with a new TTL; the renewal scheduler then renews at the new TTL's pace. Contract: the new
	 * TTL must satisfy the TTL policy ({@code ttl.minimum < ttl <= ttl.maximum}, else {@code invalid_lease_request})
	 * and the renewal never extends past the maximum lifetime: {@code expires_at = min(now + ttl, acquired_at +
	 * maximum_lifetime_ms)}; the fencing token never changes. A refusal is answered as a typed result
	 * ({@code lease_lost} also marks this context lost and cancels the job, as a failed scheduled renewal does).
	 * @param ttl the new TTL
	 * @return the renewal's result
	 * @throws IllegalStateException when no renewal scheduler renews this context (e.g. a context built by hand)
	 */
	public LeaseResult renew(Duration ttl) {
		LeaseContextRenewer current = this.renewer;
		if (current == null) {
			throw new IllegalStateException("No renewal scheduler renews this lease context");
		}
		return current.renew(this, Objects.requireNonNull(ttl, "ttl"));
	}

	/** Sets what {@link #renew(Duration)} calls: the renewal scheduler that renews this context. */
	public void renewer(@Nullable LeaseContextRenewer renewer) {
		this.renewer = renewer;
	}

	/**
	 * The keys attached to this lease (docs/attachments.md): put, get, delete and list bound to this lease's handle
	 * and program. Every ending transition of the lease deletes them atomically.
	 */
	public Attachments attachments() {
		return new Attachments(this.lease, this.service);
	}

	/** Never prints the lock key or target id. */
	@Override
	public String toString() {
		return "LeaseContext[" + leaseId() + ", token=" + fencingToken() + ", lost=" + isLost() + "]";
	}

	/**
	 * Attached keys bound to one lease: every method returns a typed {@link AttachmentResult} (never throws for a
	 * backend problem or invalid input).
	 */
	public static final class Attachments {

		private final LeaseRecord lease;

		private final @Nullable AttachedKeyOperations service;

		Attachments(LeaseRecord lease, @Nullable AttachedKeyOperations service) {
			this.lease = lease;
			this.service = service;
		}

		/** put-with-lease: stores {@code value} under {@code name}, attached to this lease. */
		public AttachmentResult put(String name, String value) {
			return (this.service != null)
					? this.service.putAttached(this.lease.handle(), name, value, RequestCaller.holderOf(this.lease))
					: unavailable();
		}

		/** Reads a key of this lease's program (a key of another active lease of the program is readable too). */
		public AttachmentResult get(String name) {
			return (this.service != null) ? this.service.getAttached(this.lease.identity().scope(), name, this.lease)
					: unavailable();
		}

		/** Deletes a key attached to this lease. */
		public AttachmentResult delete(String name) {
			return (this.service != null)
					? this.service.deleteAttached(this.lease.handle(), name, RequestCaller.holderOf(this.lease))
					: unavailable();
		}

		/** The names of every key attached to this lease. */
		public AttachmentResult list() {
			return (this.service != null)
					? this.service.listAttached(this.lease.identity().scope(), this.lease.leaseId(), this.lease)
					: unavailable();
		}

		private static AttachmentResult unavailable() {
			return new AttachmentResult(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.NONE, null, null, null,
					List.of(), false, null, "this lease context has no lease service");
		}

	}

	/** A binding scope; closing it restores the previous binding. */
	@FunctionalInterface
	public interface Scope extends AutoCloseable {

		@Override
		void close();

	}

}
