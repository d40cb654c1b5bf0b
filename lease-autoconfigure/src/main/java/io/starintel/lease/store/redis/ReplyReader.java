package io.starintel.lease.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import io.starintel.lease.core.CorruptRecordException;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseRecordJson;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;

/**
 * Turns script replies into typed results, validating every returned record strictly
 * ({@link LeaseRecordJson#fromFields}): a record that does not parse, or belongs to another identity, is
 * {@link CorruptRecordException}.
 */
final class ReplyReader {

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private static final int HEADER = 6;

	private ReplyReader() {
	}

	/**
	 * Reads the single-lease reply shape {@code {code, reason, decided_ms, replayed, current_state, retry_after_ms,
	 * field, value, ...}}.
	 */
	static LeaseResult single(List<Object> reply, @Nullable LockIdentity expected) {
		if (reply.size() < HEADER || (reply.size() - HEADER) % 2 != 0) {
			throw new CorruptRecordException("unexpected reply shape");
		}
		ResultCode code = ResultCode.fromWireName(text(reply, 0));
		if (code == ResultCode.INVALID_LEASE_REQUEST) {
			return LeaseResult.invalid(
					new InvalidLeaseRequestException("deadline_at", "further ahead than the policy allows"));
		}
		Reason reason = Reason.fromWireName(text(reply, 1));
		Instant decidedAt = Instant.ofEpochMilli(Long.parseLong(text(reply, 2)));
		boolean replayed = "1".equals(text(reply, 3));
		String current = text(reply, 4);
		long retryAfter = Long.parseLong(text(reply, 5));
		LeaseRecord lease = null;
		if (reply.size() > HEADER) {
			Map<String, String> fields = new HashMap<>();
			for (int i = HEADER; i < reply.size(); i += 2) {
				fields.put(text(reply, i), text(reply, i + 1));
			}
			lease = record(fields, expected);
		}
		LeaseState state = current.isEmpty() ? null : LeaseState.fromWireName(current);
		return new LeaseResult(code, reason, lease, replayed, state, decidedAt, retryAfter, null);
	}

	/** A lease from a JSON object of string values (the list reply and history entries). */
	static LeaseRecord recordFromJson(String json) {
		JsonNode node;
		try {
			node = MAPPER.readTree(json);
		}
		catch (JacksonException ex) {
			throw new CorruptRecordException("not valid JSON");
		}
		if (node == null || !node.isObject()) {
			throw new CorruptRecordException("not a JSON object");
		}
		Map<String, String> fields = new HashMap<>();
		for (String name : node.propertyNames()) {
			JsonNode value = node.get(name);
			if (!value.isString()) {
				throw new CorruptRecordException("field has the wrong type");
			}
			fields.put(name, value.asString());
		}
		return record(fields, null);
	}

	private static LeaseRecord record(Map<String, String> fields, @Nullable LockIdentity expected) {
		LeaseRecord record = LeaseRecordJson.fromFields(fields);
		if (expected != null && !record.identity().equals(expected)) {
			throw new CorruptRecordException("stored identity differs from the requested identity");
		}
		return record;
	}

	/** The list reply's leases, from index {@code from}. */
	static List<String> strings(List<Object> reply, int from) {
		List<String> out = new ArrayList<>(Math.max(0, reply.size() - from));
		for (int i = from; i < reply.size(); i++) {
			out.add(text(reply, i));
		}
		return out;
	}

	static String text(List<Object> reply, int index) {
		Object value = reply.get(index);
		if (value instanceof byte[] bytes) {
			return new String(bytes, StandardCharsets.UTF_8);
		}
		if (value instanceof Long || value instanceof String) {
			return value.toString();
		}
		throw new CorruptRecordException("unexpected reply element");
	}

}
