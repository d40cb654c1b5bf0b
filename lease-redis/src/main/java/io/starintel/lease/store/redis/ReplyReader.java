package io.starintel.lease.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.CorruptRecordException;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.internal.LeaseRecordJson;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.StoredRecord;

/**
 * Turns function replies (the single-lease shape of {@code lease.lua}) into typed results without building maps:
 * records are decoded strictly by {@link StoredRecord#decode}; a record stored by the v1 encoding (JSON, only in an
 * idempotency result written before an upgrade) by {@link LeaseRecordJson#fromFields}. Anything that does not
 * decode is {@link CorruptRecordException}.
 */
final class ReplyReader {

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private ReplyReader() {
	}

	/**
	 * Reads a single-lease reply: a fresh acquire {@code {code, decided_ms, token}} (the caller has every other
	 * field), a fresh release, renewal or commit authorization {@code {code, decided_ms, state, tail, fixed}} (the
	 * record the call left, in the parts the function holds it in, read by
	 * {@link StoredRecord#decode(byte[], byte[], byte[], LockIdentity)} without joining them), a refusal
	 * {@code {code, reason, decided_ms, retry_after_ms}}, or the full shape {@code {code, reason, decided_ms,
	 * retry_after_ms, current_state, replayed, record}} (replays, inspections, administration).
	 * @param acquire the acquire request and {@code leaseId} its new lease id, when the reply may be a fresh acquire
	 */
	static LeaseResult single(List<Object> reply, @Nullable LockIdentity expected, @Nullable AcquireRequest acquire,
			@Nullable String leaseId) {
		return single(reply, 0, reply.size(), expected, acquire, leaseId);
	}

	/** As {@link #single(List, LockIdentity, AcquireRequest, String)} for {@code size} elements from {@code from}. */
	static LeaseResult single(List<Object> reply, int from, int size, @Nullable LockIdentity expected,
			@Nullable AcquireRequest acquire, @Nullable String leaseId) {
		if (size != 3 && size != 4 && size != 5 && size != 7) {
			throw new CorruptRecordException("unexpected reply shape");
		}
		ResultCode code = CODES.of(reply.get(from), ResultCode::fromWireName);
		if (size == 3) {
			return fresh(code, reply, from, expected, acquire, leaseId);
		}
		if (size == 5) {
			Instant decidedAt = Instant.ofEpochMilli(number(reply, from + 1));
			LeaseRecord lease = StoredRecord.decode(bytes(reply.get(from + 2)), bytes(reply.get(from + 3)),
					bytes(reply.get(from + 4)), expected);
			return new LeaseResult(code, Reason.NONE, lease, false, lease.state(), decidedAt, 0, null);
		}
		if (code == ResultCode.INVALID_LEASE_REQUEST) {
			return LeaseResult.invalid(
					new InvalidLeaseRequestException("deadline_at", "further ahead than the policy allows"));
		}
		Reason reason = REASONS.of(reply.get(from + 1), Reason::fromWireName);
		Instant decidedAt = Instant.ofEpochMilli(number(reply, from + 2));
		long retryAfter = number(reply, from + 3);
		if (size == 4) {
			return new LeaseResult(code, reason, null, false, null, decidedAt, retryAfter, null);
		}
		Object current = reply.get(from + 4);
		boolean replayed = isOne(reply.get(from + 5));
		LeaseRecord lease = isEmpty(reply.get(from + 6)) ? null : record(reply.get(from + 6), expected);
		LeaseState state = isEmpty(current) ? null : STATES.of(current, LeaseState::fromWireName);
		return new LeaseResult(code, reason, lease, replayed, state, decidedAt, retryAfter, null);
	}

	/**
	 * A fresh acquire: {@code lease_acquired} with the new token (the record is the request's, with the lease id the
	 * store generated, acquired and renewed at the decision, expiring after the effective TTL).
	 */
	private static LeaseResult fresh(ResultCode code, List<Object> reply, int from, @Nullable LockIdentity expected,
			@Nullable AcquireRequest acquire, @Nullable String leaseId) {
		if (code != ResultCode.LEASE_ACQUIRED || acquire == null || leaseId == null) {
			throw new CorruptRecordException("unexpected reply shape");
		}
		Instant decidedAt = Instant.ofEpochMilli(number(reply, from + 1));
		long token = number(reply, from + 2);
		Instant expires = decidedAt.plusMillis(LeaseArguments.effectiveTtl(acquire));
		LeaseRecord lease = new LeaseRecord(acquire.identity(), leaseId, acquire.owner(), token, decidedAt, decidedAt,
				expires, acquire.ttlMs(), acquire.maximumLifetimeMs(), acquire.executionId(), acquire.jobId(),
				acquire.traceId(), acquire.requestId(), acquire.metadata(), LeaseState.ACTIVE);
		return new LeaseResult(code, Reason.NONE, lease, false, LeaseState.ACTIVE, decidedAt, 0, null);
	}

	private static byte[] bytes(Object value) {
		if (value instanceof byte[] bytes) {
			return bytes;
		}
		throw new CorruptRecordException("unexpected reply element");
	}

	/** A stored record from its reply element: v2, or v1 JSON (idempotency results written before an upgrade). */
	static LeaseRecord record(Object element, @Nullable LockIdentity expected) {
		return record(stored(element), 0, expected);
	}

	/** The bytes of a reply element that holds stored text. */
	private static byte[] stored(Object element) {
		return (element instanceof String text) ? text.getBytes(StandardCharsets.UTF_8) : bytes(element);
	}

	private static LeaseRecord record(byte[] stored, int from, @Nullable LockIdentity expected) {
		if (from < stored.length && stored[from] == '{') {
			return LeaseRecordJson.fromFields(
					v1Fields(new String(stored, from, stored.length - from, StandardCharsets.UTF_8)), expected);
		}
		return StoredRecord.decode(stored, from, expected);
	}

	/**
	 * A list or sweep reply entry, {@code D \31 record}: the record, which must belong to the key digest {@code D}
	 * and to {@code scope}.
	 * @throws CorruptRecordException when it does not, or does not decode
	 */
	static LeaseRecord keyedRecord(Object element, ProgramScope scope) {
		byte[] entry = stored(element);
		int sep = 0;
		while (sep < entry.length && entry[sep] != StoredRecord.SEP) {
			sep++;
		}
		if (sep == 0 || sep == entry.length) {
			throw new CorruptRecordException("record does not belong to its key");
		}
		LeaseRecord lease = record(entry, sep + 1, null);
		if (!lease.identity().keyDigest().equals(new String(entry, 0, sep, StandardCharsets.UTF_8))
				|| !lease.identity().scope().equals(scope)) {
			throw new CorruptRecordException("record does not belong to its key");
		}
		return lease;
	}

	private static Map<String, String> v1Fields(String json) {
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
		return fields;
	}

	private static final WireNames<ResultCode> CODES = new WireNames<>(ResultCode.values(), ResultCode::wireName);

	private static final WireNames<Reason> REASONS = new WireNames<>(Reason.values(), Reason::wireName);

	private static final WireNames<LeaseState> STATES = new WireNames<>(LeaseState.values(), LeaseState::wireName);

	/**
	 * The constants of an enum by the bytes of their wire names: a reply element is matched without decoding it to
	 * a string first; anything else goes through the enum's own parser (which rejects it).
	 */
	private static final class WireNames<E> {

		private final E[] values;

		private final byte[][] names;

		WireNames(E[] values, Function<E, String> wireName) {
			this.values = values;
			this.names = new byte[values.length][];
			for (int i = 0; i < values.length; i++) {
				this.names[i] = wireName.apply(values[i]).getBytes(StandardCharsets.UTF_8);
			}
		}

		E of(Object element, Function<String, E> parser) {
			if (element instanceof byte[] bytes) {
				for (int i = 0; i < this.names.length; i++) {
					if (Arrays.equals(this.names[i], bytes)) {
						return this.values[i];
					}
				}
			}
			return parser.apply(textOf(element));
		}

	}

	/** A non-negative decimal reply element (at most 18 digits), parsed from its bytes. */
	static long number(List<Object> reply, int index) {
		Object value = reply.get(index);
		if (value instanceof byte[] bytes && bytes.length > 0 && bytes.length <= 18) {
			long n = 0;
			for (byte b : bytes) {
				if (b < '0' || b > '9') {
					return Long.parseLong(textOf(value));
				}
				n = n * 10 + (b - '0');
			}
			return n;
		}
		return Long.parseLong(textOf(value));
	}

	private static boolean isEmpty(Object element) {
		return (element instanceof byte[] bytes) ? bytes.length == 0 : textOf(element).isEmpty();
	}

	private static boolean isOne(Object element) {
		return (element instanceof byte[] bytes) ? (bytes.length == 1 && bytes[0] == '1') : "1".equals(textOf(element));
	}

	static String text(List<Object> reply, int index) {
		return textOf(reply.get(index));
	}

	private static String textOf(Object value) {
		if (value instanceof byte[] bytes) {
			return new String(bytes, StandardCharsets.UTF_8);
		}
		if (value instanceof Long || value instanceof String) {
			return value.toString();
		}
		throw new CorruptRecordException("unexpected reply element");
	}

}
