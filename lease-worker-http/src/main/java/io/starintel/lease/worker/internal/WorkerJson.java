package io.starintel.lease.worker.internal;

import java.util.Set;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.http.internal.StrictJson;

/**
 * The worker API's own body fields, over the shared strict parsing ({@link StrictJson}): identifiers, the lock
 * identity a worker may set and bounded metadata. Every failure is an {@link InvalidLeaseRequestException} naming the
 * field and rule, never the value.
 */
final class WorkerJson {

	/**
	 * Components of a lock identity a worker may set: tenant and program come from its credential, so
	 * {@code tenant_id} and {@code program_id} are unknown fields here.
	 */
	static final Set<String> IDENTITY_FIELDS = Set.of("target_namespace", "target_id", "actor_name", "workflow_name",
			"operation_class");

	private WorkerJson() {
	}

	/** A required identifier field. */
	static String id(ObjectNode node, String field) {
		return Identifiers.require(field, StrictJson.string(node, field, true));
	}

	/** The caller-settable {@code lock_identity} components, completed with the credential's tenant and program. */
	static LockIdentity identity(ObjectNode node, ProgramScope scope, OperationClasses operationClasses) {
		ObjectNode identity = StrictJson.object(node, "lock_identity", IDENTITY_FIELDS);
		return LockIdentity.of(operationClasses, scope.tenantId(), scope.programId(),
				StrictJson.string(identity, "target_namespace", true), StrictJson.string(identity, "target_id", true),
				StrictJson.string(identity, "actor_name", true), StrictJson.string(identity, "workflow_name", true),
				StrictJson.string(identity, "operation_class", false));
	}

	/** Optional bounded metadata object (contract: documented, non-secret, size-limited). */
	static LeaseMetadata metadata(ObjectNode node) {
		JsonNode value = node.get("metadata");
		if (value == null || value.isNull()) {
			return LeaseMetadata.empty();
		}
		if (!value.isObject()) {
			throw new InvalidLeaseRequestException("metadata", "must be an object");
		}
		return LeaseMetadata.parse(StrictJson.MAPPER.writeValueAsString(value));
	}

}
