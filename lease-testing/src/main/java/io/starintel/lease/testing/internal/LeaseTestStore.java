package io.starintel.lease.testing.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.store.LeaseStore;

/**
 * The application's {@link LeaseStore} as tests see it: every call goes to the real store (in-memory or Redis)
 * unless the backend is switched "unreachable" (for every call, or for the calls naming one lease), in which case
 * the call answers {@code lease_backend_unavailable} / {@code backend_unreachable} without reaching the store, as the
 * Redis store answers when it cannot connect. Acquisitions and release calls are recorded in
 * {@link LeaseObservations}. It sits under the audit layer, so an unreachable backend is audited like a real one.
 *
 * <p>Why a decorator and not a TCP proxy in front of Redis: it works the same on both stores, needs no port plumbing
 * around a {@code @ServiceConnection}, and switches in one step. What it does not exercise: the Redis client's own
 * time-outs and lost replies ({@code lease_outcome_unknown}), and the components that talk to Redis without the
 * lease store (checkpoints, CouchDB document marks, the AMQP consumer guard): the project's own fault suites cover
 * those with a proxy.
 */
public final class LeaseTestStore implements LeaseStore {

	private final LeaseStore delegate;

	private final @Nullable MutableBackendClock clock;

	private final LeaseObservations observations;

	private volatile boolean unreachable;

	private final Set<String> unreachableLeases = ConcurrentHashMap.newKeySet();

	/**
	 * Decorates {@code delegate}, recording into {@code observations}; {@code clock} is the delegate's backend clock
	 * when the test controls it.
	 */
	public LeaseTestStore(LeaseStore delegate, @Nullable MutableBackendClock clock, LeaseObservations observations) {
		this.delegate = Objects.requireNonNull(delegate, "delegate");
		this.clock = clock;
		this.observations = Objects.requireNonNull(observations, "observations");
	}

	/** The undecorated store. */
	public LeaseStore delegate() {
		return this.delegate;
	}

	/** The backend clock, when the test controls it (the in-memory test store). */
	public @Nullable MutableBackendClock clock() {
		return this.clock;
	}

	public LeaseObservations observations() {
		return this.observations;
	}

	/** Makes every call unreachable (or reachable again). */
	public void setUnreachable(boolean unreachable) {
		this.unreachable = unreachable;
	}

	public boolean isUnreachable() {
		return this.unreachable;
	}

	/** Makes the calls naming one lease (renew, release, commit, attached keys) unreachable, or reachable again. */
	public void setUnreachable(String leaseId, boolean unreachable) {
		if (unreachable) {
			this.unreachableLeases.add(leaseId);
		}
		else {
			this.unreachableLeases.remove(leaseId);
		}
	}

	/** Every switch back to reachable. */
	public void reachable() {
		this.unreachable = false;
		this.unreachableLeases.clear();
	}

	private boolean blocked(@Nullable LeaseHandle handle) {
		return this.unreachable || (handle != null && this.unreachableLeases.contains(handle.leaseId()));
	}

	private static LeaseResult unavailable() {
		return LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE, null);
	}

	private LeaseResult recordAcquisition(LeaseResult result) {
		if (result.code() == ResultCode.LEASE_ACQUIRED && result.lease() != null && !result.replayed()) {
			this.observations.acquired(result.lease());
		}
		return result;
	}

	@Override
	public LeaseResult acquire(AcquireRequest request) {
		return this.unreachable ? unavailable() : recordAcquisition(this.delegate.acquire(request));
	}

	@Override
	public LeaseResult acquireWaiting(AcquireRequest request, Duration wait) {
		return this.unreachable ? unavailable() : recordAcquisition(this.delegate.acquireWaiting(request, wait));
	}

	@Override
	public LeaseResult renew(RenewRequest request) {
		return blocked(request.handle()) ? unavailable() : this.delegate.renew(request);
	}

	@Override
	public List<LeaseResult> renewAll(List<RenewRequest> requests) {
		boolean[] blocked = new boolean[requests.size()];
		List<RenewRequest> reachable = new ArrayList<>(requests.size());
		for (int i = 0; i < requests.size(); i++) {
			blocked[i] = blocked(requests.get(i).handle());
			if (!blocked[i]) {
				reachable.add(requests.get(i));
			}
		}
		List<LeaseResult> answered = reachable.isEmpty() ? List.of() : this.delegate.renewAll(reachable);
		List<LeaseResult> results = new ArrayList<>(requests.size());
		int next = 0;
		for (int i = 0; i < requests.size(); i++) {
			results.add(blocked[i] ? unavailable() : answered.get(next++));
		}
		return results;
	}

	@Override
	public LeaseResult release(ReleaseRequest request) {
		try {
			return blocked(request.handle()) ? unavailable() : this.delegate.release(request);
		}
		finally {
			this.observations.releaseCalled(request.handle().leaseId());
		}
	}

	@Override
	public LeaseResult inspect(InspectRequest request) {
		return this.unreachable ? unavailable() : this.delegate.inspect(request);
	}

	@Override
	public LeasePage list(ListRequest request) {
		return this.unreachable ? LeasePage.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE,
				null) : this.delegate.list(request);
	}

	@Override
	public LeaseResult forceRelease(AdminRequest request) {
		return this.unreachable ? unavailable() : this.delegate.forceRelease(request);
	}

	@Override
	public LeaseResult revoke(AdminRequest request) {
		return this.unreachable ? unavailable() : this.delegate.revoke(request);
	}

	@Override
	public LeaseResult authorizeCommit(CommitRequest request) {
		return blocked(request.handle()) ? unavailable() : this.delegate.authorizeCommit(request);
	}

	@Override
	public LeaseResult resolve(ResolveRequest request) {
		return this.unreachable ? unavailable() : this.delegate.resolve(request);
	}

	private static AttachmentResult attachmentUnavailable() {
		return AttachmentResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE, null);
	}

	@Override
	public AttachmentResult putAttached(AttachPutRequest request) {
		return blocked(request.handle()) ? attachmentUnavailable() : this.delegate.putAttached(request);
	}

	@Override
	public AttachmentResult getAttached(AttachGetRequest request) {
		return this.unreachable ? attachmentUnavailable() : this.delegate.getAttached(request);
	}

	@Override
	public AttachmentResult deleteAttached(AttachDeleteRequest request) {
		return blocked(request.handle()) ? attachmentUnavailable() : this.delegate.deleteAttached(request);
	}

	@Override
	public AttachmentResult listAttached(AttachListRequest request) {
		return this.unreachable ? attachmentUnavailable() : this.delegate.listAttached(request);
	}

	@Override
	public SweepResult sweepExpired(SweepRequest request) {
		return this.unreachable ? SweepResult.failure(SweepResult.Status.BACKEND_UNAVAILABLE, null)
				: this.delegate.sweepExpired(request);
	}

	@Override
	public boolean writesAdminAuditAtomically() {
		return this.delegate.writesAdminAuditAtomically();
	}

	@Override
	public String toString() {
		return "LeaseTestStore[" + this.delegate.getClass().getSimpleName() + "]";
	}

}
