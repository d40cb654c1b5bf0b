package io.starintel.lease.admin;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Set;

import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.OperationClasses;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Strict parsing of admin request bodies: one JSON object, no duplicate or unknown fields, exact JSON types, bounded
 * nesting and sizes. Every failure is an {@link InvalidLeaseRequestException} naming the field and rule, never the
 * rejected value (contract: malformed input is {@code invalid_lease_request}, never a server error).
 */
final class AdminJson {

	private static final JsonMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
		.streamReadConstraints(StreamReadConstraints.builder()
			.maxNestingDepth(8)
			.maxStringLength(4096)
			.maxNumberLength(32)
			.build())
		.build())
		.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
		.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
		.build();

	/** Fields of a lock identity object. */
	static final Set<String> IDENTITY_FIELDS = Set.copyOf(LockIdentity.COMPONENTS);

	private AdminJson() {
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

	/** Rejects unknown fields. */
	static ObjectNode only(ObjectNode node, String where, Set<String> allowed) {
		Iterator<String> names = node.propertyNames().iterator();
		while (names.hasNext()) {
			if (!allowed.contains(names.next())) {
				throw new InvalidLeaseRequestException(where, "unknown field");
			}
		}
		return node;
	}

	/** A required or optional JSON string field. */
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

	/** A required JSON integer field within {@code long}. */
	static long integer(ObjectNode node, String field) {
		JsonNode value = node.get(field);
		if (value == null || value.isNull()) {
			throw new InvalidLeaseRequestException(field, "missing");
		}
		if (!value.isIntegralNumber() || !value.canConvertToLong()) {
			throw new InvalidLeaseRequestException(field, "must be an integer");
		}
		return value.longValue();
	}

	/** The {@code lock_identity} object, validated and normalized by lock-key v1. */
	static LockIdentity identity(ObjectNode node, OperationClasses operationClasses) {
		JsonNode value = node.get("lock_identity");
		if (value == null || !value.isObject()) {
			throw new InvalidLeaseRequestException("lock_identity", "must be an object");
		}
		ObjectNode identity = only((ObjectNode) value, "lock_identity", IDENTITY_FIELDS);
		return LockIdentity.of(operationClasses, string(identity, "tenant_id", true),
				string(identity, "program_id", true), string(identity, "target_namespace", true),
				string(identity, "target_id", true), string(identity, "actor_name", true),
				string(identity, "workflow_name", true), string(identity, "operation_class", false));
	}

	/** An ISO-8601 instant (e.g. {@code 2026-08-05T12:00:00.000Z}). */
	static Instant instant(String field, String text) {
		if (text.length() > 40) {
			throw new InvalidLeaseRequestException(field, "must be an ISO-8601 instant");
		}
		Instant instant;
		try {
			instant = Instant.parse(text);
		}
		catch (DateTimeParseException ex) {
			throw new InvalidLeaseRequestException(field, "must be an ISO-8601 instant");
		}
		long millis;
		try {
			// every deadline travels as epoch milliseconds: years beyond about +-292 million are malformed input
			millis = instant.toEpochMilli();
		}
		catch (ArithmeticException ex) {
			throw new InvalidLeaseRequestException(field, "out of range");
		}
		if (millis < 0) {
			// before 1970: not a deadline any client computed from its clock
			throw new InvalidLeaseRequestException(field, "out of range");
		}
		return instant;
	}

}
