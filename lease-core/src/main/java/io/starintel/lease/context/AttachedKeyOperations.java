package io.starintel.lease.context;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.RequestCaller;

/**
 * The attached-key operations a {@link LeaseContext} binds to its lease (implemented by the operations facade,
 * {@code LeaseService}); kept here so that the context depends on the core types only. Every method returns a typed
 * result and never throws for a backend problem or invalid input.
 */
public interface AttachedKeyOperations {

	/** put-with-lease: stores {@code value} under {@code name}, attached to the lease of {@code handle}. */
	AttachmentResult putAttached(LeaseHandle handle, String name, String value);

	/**
	 * put-with-lease sent by {@code caller} (its credential and ids go into the audit event only); by default as
	 * {@link #putAttached(LeaseHandle, String, String)}.
	 */
	default AttachmentResult putAttached(LeaseHandle handle, String name, String value,
			@Nullable RequestCaller caller) {
		return putAttached(handle, name, value);
	}

	/** Reads a key of the program. */
	AttachmentResult getAttached(ProgramScope scope, String name);

	/** Deletes a key attached to the lease of {@code handle}. */
	AttachmentResult deleteAttached(LeaseHandle handle, String name);

	/**
	 * Deletes a key attached to the lease of {@code handle}, sent by {@code caller} (audit only); by default as
	 * {@link #deleteAttached(LeaseHandle, String)}.
	 */
	default AttachmentResult deleteAttached(LeaseHandle handle, String name, @Nullable RequestCaller caller) {
		return deleteAttached(handle, name);
	}

	/** The names of every key attached to a lease of the program. */
	AttachmentResult listAttached(ProgramScope scope, String leaseId);

	/**
	 * Reads a key of the program for the holder of {@code reader} (its principal, credential id and service instance
	 * go into the audit event only); by default as {@link #getAttached(ProgramScope, String)}.
	 */
	default AttachmentResult getAttached(ProgramScope scope, String name, LeaseRecord reader) {
		return getAttached(scope, name);
	}

	/**
	 * The names of every key attached to a lease of the program, for the holder of {@code reader} (audit only); by
	 * default as {@link #listAttached(ProgramScope, String)}.
	 */
	default AttachmentResult listAttached(ProgramScope scope, String leaseId, LeaseRecord reader) {
		return listAttached(scope, leaseId);
	}

}
