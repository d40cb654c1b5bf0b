package io.starintel.lease.http.internal;

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

import io.starintel.lease.core.InvalidLeaseRequestException;

/**
 * Strict parsing of request bodies: one JSON object, no duplicate or unknown fields, exact JSON types, bounded nesting
 * and sizes. Every failure is an {@link InvalidLeaseRequestException} naming the field and rule, never the rejected
 * value (contract: malformed input is {@code invalid_lease_request}, never a server error).
 */
public final class StrictJson {

	/** The bounded, strict mapper of both adapters (also used to write their envelopes). */
	public static final JsonMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
		.streamReadConstraints(StreamReadConstraints.builder()
			.maxNestingDepth(8)
			.maxStringLength(4096)
			.maxNumberLength(32)
			.build())
		.build())
		.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
		.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
		.build();

	private static final int MAX_INSTANT_LENGTH = 40;

	private StrictJson() {
	}

	/** Parses a body that must be one JSON object with only the allowed fields. */
	public static ObjectNode object(byte[] body, Set<String> allowed) {
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

	/** Rejects unknown fields of {@code node} (named {@code where} in the failure). */
	public static ObjectNode only(ObjectNode node, String where, Set<String> allowed) {
		Iterator<String> names = node.propertyNames().iterator();
		while (names.hasNext()) {
			if (!allowed.contains(names.next())) {
				throw new InvalidLeaseRequestException(where, "unknown field");
			}
		}
		return node;
	}

	/** The {@code field} object of {@code node} with only the allowed fields. */
	public static ObjectNode object(ObjectNode node, String field, Set<String> allowed) {
		JsonNode value = node.get(field);
		if (value == null || !value.isObject()) {
			throw new InvalidLeaseRequestException(field, "must be an object");
		}
		return only((ObjectNode) value, field, allowed);
	}

	/** A required or optional JSON string field ({@code null} when optional and absent or null). */
	public static @Nullable String string(ObjectNode node, String field, boolean required) {
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

	/** A required string field. */
	public static String requiredString(ObjectNode node, String field) {
		String value = string(node, field, true);
		if (value == null) {
			throw new InvalidLeaseRequestException(field, "missing");
		}
		return value;
	}

	/** A required or optional JSON integer field within {@code long} ({@code null} when optional and absent). */
	public static @Nullable Long integer(ObjectNode node, String field, boolean required) {
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

	/** A required JSON integer field within {@code long}. */
	public static long requiredInteger(ObjectNode node, String field) {
		Long value = integer(node, field, true);
		if (value == null) {
			throw new InvalidLeaseRequestException(field, "missing");
		}
		return value;
	}

	/**
	 * An ISO-8601 instant (e.g. {@code 2026-08-05T12:00:00.000Z}) that fits epoch milliseconds and is not before 1970
	 * (every deadline travels as epoch milliseconds; no client computed an earlier one from its clock): extreme dates
	 * are malformed input, never a server error.
	 */
	public static Instant instant(String field, String text) {
		if (text.length() > MAX_INSTANT_LENGTH) {
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
			millis = instant.toEpochMilli();
		}
		catch (ArithmeticException ex) {
			throw new InvalidLeaseRequestException(field, "out of range");
		}
		if (millis < 0) {
			throw new InvalidLeaseRequestException(field, "out of range");
		}
		return instant;
	}

}
