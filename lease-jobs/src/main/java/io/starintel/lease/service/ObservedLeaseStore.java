package io.starintel.lease.service;

import java.time.Duration;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.store.LeaseStore;

/**
 * The observed, exception-mapped view of a store ({@link LeaseService#operations()}): every SPI verb through the
 * service's {@link OperationRunner}; the mutations answer {@code lease_outcome_unknown} when the store throws.
 */
final class ObservedLeaseStore implements LeaseStore {

	private static final Logger logger = LoggerFactory.getLogger(LeaseService.class);

	private final LeaseStore store;

	private final OperationRunner runner;

	ObservedLeaseStore(LeaseStore store, OperationRunner runner) {
		this.store = store;
		this.runner = runner;
	}

	@Override
	public <T> Optional<T> unwrap(Class<T> type) {
		return type.isInstance(this) ? Optional.of(type.cast(this)) : this.store.unwrap(type);
	}

	@Override
	public LeaseResult acquire(AcquireRequest request) {
		return this.runner.observed("acquire", LeaseService.MUTATION_THREW, () -> this.store.acquire(request));
	}

	@Override
	public LeaseResult acquireWaiting(AcquireRequest request, Duration wait) {
		return this.runner.observed("acquire", LeaseService.MUTATION_THREW,
				() -> this.store.acquireWaiting(request, wait));
	}

	@Override
	public LeaseResult renew(RenewRequest request) {
		return this.runner.observed("renew", LeaseService.MUTATION_THREW, () -> this.store.renew(request));
	}

	@Override
	public LeaseResult release(ReleaseRequest request) {
		return this.runner.observed("release", LeaseService.MUTATION_THREW, () -> this.store.release(request));
	}

	@Override
	public LeaseResult inspect(InspectRequest request) {
		return this.runner.observed("inspect", ResultCode.LEASE_BACKEND_UNAVAILABLE,
				() -> this.store.inspect(request));
	}

	@Override
	public LeasePage list(ListRequest request) {
		return this.runner.page(() -> this.store.list(request));
	}

	@Override
	public LeaseResult forceRelease(AdminRequest request) {
		return this.runner.observed("force_release", LeaseService.MUTATION_THREW,
				() -> this.store.forceRelease(request));
	}

	@Override
	public LeaseResult revoke(AdminRequest request) {
		return this.runner.observed("revoke", LeaseService.MUTATION_THREW, () -> this.store.revoke(request));
	}

	@Override
	public LeaseResult authorizeCommit(CommitRequest request) {
		return this.runner.observed("authorize_commit", ResultCode.LEASE_BACKEND_UNAVAILABLE,
				() -> this.store.authorizeCommit(request));
	}

	@Override
	public LeaseResult resolve(ResolveRequest request) {
		return this.runner.observed("resolve", ResultCode.LEASE_BACKEND_UNAVAILABLE,
				() -> this.store.resolve(request));
	}

	@Override
	public AttachmentResult putAttached(AttachPutRequest request) {
		return this.runner.attachment("attach_put", () -> this.store.putAttached(request));
	}

	@Override
	public AttachmentResult getAttached(AttachGetRequest request) {
		return this.runner.attachment("attach_get", () -> this.store.getAttached(request));
	}

	@Override
	public AttachmentResult deleteAttached(AttachDeleteRequest request) {
		return this.runner.attachment("attach_delete", () -> this.store.deleteAttached(request));
	}

	@Override
	public AttachmentResult listAttached(AttachListRequest request) {
		return this.runner.attachment("attach_list", () -> this.store.listAttached(request));
	}

	@Override
	public boolean writesAdminAuditAtomically() {
		return this.store.writesAdminAuditAtomically();
	}

	/** The store's sweep (the expiry sweeper's call); a store that throws answers backend_unavailable. */
	@Override
	public SweepResult sweepExpired(SweepRequest request) {
		try {
			return this.store.sweepExpired(request);
		}
		catch (RuntimeException ex) {
			logger.warn("Lease store threw on sweep ({})", ex.getClass().getName());
			return SweepResult.failure(SweepResult.Status.BACKEND_UNAVAILABLE, null);
		}
	}

}
