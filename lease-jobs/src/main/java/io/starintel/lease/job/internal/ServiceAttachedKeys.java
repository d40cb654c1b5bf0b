package io.starintel.lease.job.internal;

import java.util.function.Supplier;

import io.starintel.lease.context.AttachedKeyOperations;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.service.LeaseService;

/**
 * The attached-key operations a job's {@code LeaseContext} binds to its lease: each one request of the lease service,
 * with a fresh request id and the service's deadline; invalid input (a request the core records refuse to build) is
 * answered {@code invalid_lease_request}, never thrown.
 */
final class ServiceAttachedKeys implements AttachedKeyOperations {

	private final LeaseService service;

	ServiceAttachedKeys(LeaseService service) {
		this.service = service;
	}

	@Override
	public AttachmentResult putAttached(LeaseHandle handle, String name, String value) {
		return typed(() -> this.service
			.putAttached(new AttachPutRequest(handle, name, value, this.service.newId(), this.service.deadline())));
	}

	@Override
	public AttachmentResult getAttached(ProgramScope scope, String name) {
		return typed(() -> this.service
			.getAttached(new AttachGetRequest(scope, name, this.service.newId(), this.service.deadline())));
	}

	@Override
	public AttachmentResult deleteAttached(LeaseHandle handle, String name) {
		return typed(() -> this.service
			.deleteAttached(new AttachDeleteRequest(handle, name, this.service.newId(), this.service.deadline())));
	}

	@Override
	public AttachmentResult listAttached(ProgramScope scope, String leaseId) {
		return typed(() -> this.service
			.listAttached(new AttachListRequest(scope, leaseId, this.service.newId(), this.service.deadline())));
	}

	private static AttachmentResult typed(Supplier<AttachmentResult> call) {
		try {
			return call.get();
		}
		catch (InvalidLeaseRequestException ex) {
			return AttachmentResult.invalid(ex);
		}
	}

}
