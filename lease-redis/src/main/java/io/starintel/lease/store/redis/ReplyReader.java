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
	 * record the call left, in the parts the function holds it in: {@link #joined}), a refusal {@code {code, reason,
	 * decided_ms, retry_after_ms}}, or the full shape {@code {code, reason, decided_ms, retry_after_ms,
	 * current_state, replayed, record}} (replays, inspections, administration).
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
			LeaseRecord lease = StoredRecord.decode(joined(reply, from + 2), expected);
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
		LeaseRecord lease = isEmpty(reply.get(from + 6)) ? null : record(text(reply, from + 6), expected);
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

	/**
	 * The wire form of a record sent in parts {@code state, tail, fixed} from {@code from}: {@code 2 SEP state tail
	 * SEP fixed} (the tail, the record's times after its state, begins with its own separator), built once as
	 * UTF-8 bytes.
	 */
	static String joined(List<Object> reply, int from) {
		byte[] state = bytes(reply.get(from));
		byte[] tail = bytes(reply.get(from + 1));
		byte[] fixed = bytes(reply.get(from + 2));
		byte[] record = new byte[3 + state.length + tail.length + fixed.length];
		record[0] = '2';
		record[1] = (byte) StoredRecord.SEP;
		System.arraycopy(state, 0, record, 2, state.length);
		System.arraycopy(tail, 0, record, 2 + state.length, tail.length);
		record[2 + state.length + tail.length] = (byte) StoredRecord.SEP;
		System.arraycopy(fixed, 0, record, 3 + state.length + tail.length, fixed.length);
		return new String(record, StandardCharsets.UTF_8);
	}

	private static byte[] bytes(Object value) {
		if (value instanceof byte[] bytes) {
			return bytes;
		}
		throw new CorruptRecordException("unexpected reply element");
	}

	/** A stored record: v2 string, or v1 JSON (idempotency results written before an upgrade). */
	static LeaseRecord record(String stored, @Nullable LockIdentity expected) {
		if (!stored.isEmpty() && stored.charAt(0) == '{') {
			return LeaseRecordJson.fromFields(v1Fields(stored), expected);
		}
		return StoredRecord.decode(stored, expected);
	}

	/**
	 * A list or sweep reply entry, {@code D \31 record}: the record, which must belong to the key digest {@code D}
	 * and to {@code scope}.
	 * @throws CorruptRecordException when it does not, or does not decode
	 */
	static LeaseRecord keyedRecord(String entry, ProgramScope scope) {
		int sep = entry.indexOf(StoredRecord.SEP);
		LeaseRecord lease = record(entry.substring(sep + 1), null);
		if (sep <= 0 || !lease.identity().keyDigest().equals(entry.substring(0, sep))
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
