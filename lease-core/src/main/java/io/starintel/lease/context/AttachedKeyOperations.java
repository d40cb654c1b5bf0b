package io.starintel.lease.context;

import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.ProgramScope;

/**
 * The attached-key operations a {@link LeaseContext} binds to its lease (implemented by the operations facade,
 * {@code LeaseService}); kept here so that the context depends on the core types only. Every method returns a typed
 * result and never throws for a backend problem or invalid input.
 */
public interface AttachedKeyOperations {

	/** put-with-lease: stores {@code value} under {@code name}, attached to the lease of {@code handle}. */
	AttachmentResult putAttached(LeaseHandle handle, String name, String value);

	/** Reads a key of the program. */
	AttachmentResult getAttached(ProgramScope scope, String name);

	/** Deletes a key attached to the lease of {@code handle}. */
	AttachmentResult deleteAttached(LeaseHandle handle, String name);

	/** The names of every key attached to a lease of the program. */
	AttachmentResult listAttached(ProgramScope scope, String leaseId);

}
