package io.starintel.lease.worker;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import io.starintel.lease.core.Identifiers;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.core.ProgramScope;

/**
 * Strict parsing of worker request bodies: one JSON object, no duplicate or unknown fields, exact JSON types, bounded
 * nesting and sizes. Every failure is an {@link InvalidLeaseRequestException} naming the field and rule, never the
 * value (contract: malformed input is {@code invalid_lease_request}).
 */
final class WorkerJson {

	static final JsonMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
		.streamReadConstraints(StreamReadConstraints.builder()
			.maxNestingDepth(8)
			.maxStringLength(4096)
			.maxNumberLength(32)
			.build())
		.build())
		.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
		.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
		.build();

	/**
	 * Components of a lock identity a worker may set: tenant and program come from its credential, so
	 * {@code tenant_id} and {@code program_id} are unknown fields here.
	 */
	static final Set<String> IDENTITY_FIELDS = Set.of("target_namespace", "target_id", "actor_name", "workflow_name",
			"operation_class");

	private WorkerJson() {
	}

	/** Parses a body that must be one JSON object with only the allowed fields. */
	static ObjectNode object(byte[] body, Set<String> allowed) {
		JsonNode node;
		try {
			node = MAPPER.readTree(body);
		}
		catch (JacksonException | IllegalArgumentException ex) {
			throw new InvalidLeaseRequestException("body", "malformed JSON");
		}
		if (node == null || !node.isObject()) {
			throw new InvalidLeaseRequestException("body", "must be a JSON object");
		}
		return only((ObjectNode) node, "body", allowed);
	}

	static ObjectNode only(ObjectNode node, String where, Set<String> allowed) {
		Iterator<String> names = node.propertyNames().iterator();
		while (names.hasNext()) {
			if (!allowed.contains(names.next())) {
				throw new InvalidLeaseRequestException(where, "unknown field");
			}
		}
		return node;
	}

	static @Nullable String string(ObjectNode node, String field, boolean required) {
		JsonNode value = node.get(field);
		if (value == null || value.isNull()) {
			if (required) {
				throw new InvalidLeaseRequestException(field, "missing");
			}
			return null;
		}
		if (!value.isString()) {
			throw new InvalidLeaseRequestException(field, "must be a string");
		}
		return value.asString();
	}

	static String id(ObjectNode node, String field) {
		return Identifiers.require(field, string(node, field, true));
	}

	static @Nullable Long integer(ObjectNode node, String field, boolean required) {
		JsonNode value = node.get(field);
		if (value == null || value.isNull()) {
			if (required) {
				throw new InvalidLeaseRequestException(field, "missing");
			}
			return null;
		}
		if (!value.isIntegralNumber() || !value.canConvertToLong()) {
			throw new InvalidLeaseRequestException(field, "must be an integer");
		}
		return value.longValue();
	}

	/** The caller-settable {@code lock_identity} components, completed with the credential's tenant and program. */
	static LockIdentity identity(ObjectNode node, ProgramScope scope, OperationClasses operationClasses) {
		JsonNode value = node.get("lock_identity");
		if (value == null || !value.isObject()) {
			throw new InvalidLeaseRequestException("lock_identity", "must be an object");
		}
		ObjectNode identity = only((ObjectNode) value, "lock_identity", IDENTITY_FIELDS);
		return LockIdentity.of(operationClasses, scope.tenantId(), scope.programId(),
				string(identity, "target_namespace", true), string(identity, "target_id", true),
				string(identity, "actor_name", true), string(identity, "workflow_name", true),
				string(identity, "operation_class", false));
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
		return LeaseMetadata.parse(MAPPER.writeValueAsString(value));
	}

	/** An ISO-8601 instant (e.g. {@code 2026-08-05T12:00:00.000Z}). */
	static Instant instant(String field, String text) {
		if (text.length() > 40) {
			throw new InvalidLeaseRequestException(field, "must be an ISO-8601 instant");
		}
		try {
			return Instant.parse(text);
		}
		catch (DateTimeParseException ex) {
			throw new InvalidLeaseRequestException(field, "must be an ISO-8601 instant");
		}
	}

}
