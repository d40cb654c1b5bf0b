package io.starintel.lease.core;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import io.starintel.lease.core.internal.PlainText;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Bounded, non-secret lease metadata: a JSON object kept in canonical form (keys sorted, compact).
 *
 * <p>Contract: metadata accepts only a documented, non-secret, size-limited JSON object. Bounds: at most
 * {@value #MAX_BYTES} UTF-8 bytes in canonical form, nesting depth at most {@value #MAX_DEPTH}, at most
 * {@value #MAX_ENTRIES} keys and array elements in all, keys matching {@code [a-z0-9_.-]{1,64}}, strings of at
 * most {@value #MAX_STRING} characters without control, format or line separator characters or unpaired surrogates
 * ({@link PlainText}). Keys that name secrets (containing
 * {@code password}, {@code secret}, {@code credential}, {@code authorization}, {@code bearer}, {@code apikey},
 * {@code api_key}, {@code private_key}, {@code cookie} or {@code session}) are rejected.
 */
public final class LeaseMetadata {

	public static final int MAX_BYTES = 2048;

	public static final int MAX_DEPTH = 4;

	public static final int MAX_ENTRIES = 64;

	public static final int MAX_STRING = 256;

	private static final LeaseMetadata EMPTY = new LeaseMetadata("{}");

	private static final Pattern KEY = Pattern.compile("[a-z0-9_.-]{1,64}");

	private static final List<String> SECRET_WORDS = List.of("password", "passwd", "secret", "credential",
			"authorization", "bearer", "apikey", "api_key", "api-key", "private_key", "cookie", "session");

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private final String json;

	private LeaseMetadata(String json) {
		this.json = json;
	}

	/** The empty object {@code {}}. */
	public static LeaseMetadata empty() {
		return EMPTY;
	}

	/**
	 * Parses and validates metadata JSON.
	 * @throws InvalidLeaseRequestException (field {@code metadata}) when any bound is broken
	 */
	public static LeaseMetadata parse(String json) {
		if ("{}".equals(json)) {
			return EMPTY;
		}
		JsonNode node;
		try {
			node = MAPPER.readTree(json);
		}
		catch (JacksonException | IllegalArgumentException ex) {
			throw new InvalidLeaseRequestException("metadata", "not valid JSON");
		}
		return ofNode(node);
	}

	/** Validates a map of simple values (strings, numbers, booleans, nested maps/lists). */
	public static LeaseMetadata of(Map<String, ?> values) {
		requireTree(values, 1);
		JsonNode node;
		try {
			node = MAPPER.valueToTree(values);
		}
		catch (JacksonException | IllegalArgumentException ex) {
			throw new InvalidLeaseRequestException("metadata", "not representable as JSON");
		}
		return ofNode(node);
	}

	/**
	 * Walks the maps and collections of a value before Jackson does: deeper than {@link #MAX_DEPTH} (a map that
	 * contains itself is infinitely deep) or with a map key that is not a string is refused here, typed, rather than
	 * as a stack overflow or a serializer error inside Jackson.
	 */
	private static void requireTree(@Nullable Object value, int depth) {
		if (value instanceof Map<?, ?> map) {
			if (depth > MAX_DEPTH) {
				throw new InvalidLeaseRequestException("metadata", "deeper than " + MAX_DEPTH);
			}
			for (Map.Entry<?, ?> entry : map.entrySet()) {
				if (!(entry.getKey() instanceof String)) {
					throw new InvalidLeaseRequestException("metadata", "keys must be strings");
				}
				requireTree(entry.getValue(), depth + 1);
			}
		}
		else if (value instanceof Iterable<?> items) {
			if (depth > MAX_DEPTH) {
				throw new InvalidLeaseRequestException("metadata", "deeper than " + MAX_DEPTH);
			}
			for (Object item : items) {
				requireTree(item, depth + 1);
			}
		}
	}

	static LeaseMetadata ofNode(JsonNode node) {
		if (node == null || !node.isObject()) {
			throw new InvalidLeaseRequestException("metadata", "must be a JSON object");
		}
		int[] entries = { 0 };
		JsonNode canonical = canonicalize(node, 1, entries);
		String text = MAPPER.writeValueAsString(canonical);
		if (text.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
			throw new InvalidLeaseRequestException("metadata", "larger than " + MAX_BYTES + " bytes");
		}
		return text.equals("{}") ? EMPTY : new LeaseMetadata(text);
	}

	private static JsonNode canonicalize(JsonNode node, int depth, int[] entries) {
		if (depth > MAX_DEPTH) {
			throw new InvalidLeaseRequestException("metadata", "deeper than " + MAX_DEPTH);
		}
		if (node.isObject()) {
			ObjectNode sorted = JsonNodeFactory.instance.objectNode();
			List<String> names = new ArrayList<>(node.propertyNames());
			names.sort(null);
			for (String name : names) {
				countEntry(entries);
				checkKey(name);
				sorted.set(name, canonicalize(node.get(name), depth + 1, entries));
			}
			return sorted;
		}
		if (node.isArray()) {
			ArrayNode array = JsonNodeFactory.instance.arrayNode();
			for (JsonNode element : node) {
				countEntry(entries);
				array.add(canonicalize(element, depth + 1, entries));
			}
			return array;
		}
		if (node.isString()) {
			checkString(node.asString());
			return node;
		}
		if (node.isNumber()) {
			// JSON has no infinity or NaN: 1e1000000 parses as a double that would be stored as the text "Infinity"
			if (node.isFloatingPointNumber() && !Double.isFinite(node.asDouble())) {
				throw new InvalidLeaseRequestException("metadata", "a number out of range");
			}
			return node;
		}
		if (node.isBoolean() || node.isNull()) {
			return node;
		}
		throw new InvalidLeaseRequestException("metadata", "unsupported JSON value");
	}

	private static void countEntry(int[] entries) {
		if (++entries[0] > MAX_ENTRIES) {
			throw new InvalidLeaseRequestException("metadata", "more than " + MAX_ENTRIES + " entries");
		}
	}

	private static void checkKey(String name) {
		if (!KEY.matcher(name).matches()) {
			throw new InvalidLeaseRequestException("metadata", "keys must match [a-z0-9_.-]{1,64}");
		}
		String lower = name.toLowerCase(Locale.ROOT);
		for (String word : SECRET_WORDS) {
			if (lower.contains(word)) {
				throw new InvalidLeaseRequestException("metadata", "keys must not name secrets");
			}
		}
	}

	private static void checkString(String value) {
		if (value.length() > MAX_STRING) {
			throw new InvalidLeaseRequestException("metadata", "strings longer than " + MAX_STRING + " characters");
		}
		String problem = PlainText.problem(value);
		if (problem != null) {
			throw new InvalidLeaseRequestException("metadata", problem);
		}
	}

	/** Canonical compact JSON text. */
	public String json() {
		return this.json;
	}

	@Override
	public boolean equals(Object other) {
		return other instanceof LeaseMetadata that && this.json.equals(that.json);
	}

	@Override
	public int hashCode() {
		return this.json.hashCode();
	}

	@Override
	public String toString() {
		return "LeaseMetadata[" + this.json.length() + " chars]";
	}

}
