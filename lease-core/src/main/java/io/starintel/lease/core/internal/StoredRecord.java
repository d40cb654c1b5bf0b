package io.starintel.lease.core.internal;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.LockIdentity;

/**
 * The compact storage form of a lease record (storage encoding v2; the logical record stays {@code record_version}
 * 1): one string of fields separated by {@value #SEP_NAME}, the Java home of the layout that the Redis function
 * library's {@code prelude.lua} decodes.
 *
 * <pre>
 * '2' state token acquired_ms renewed_ms expires_ms ttl_ms maximum_lifetime_ms | fixed
 * fixed = identity prefix (tenant program namespace target_id actor workflow operation_class, each + SEP)
 *         lease_id owner_principal_id service_instance_id owner_client_id owner_credential_id execution_id job_id
 *         trace_id request_id metadata
 * </pre>
 * Times are epoch milliseconds, tokens exact decimal digits. No identity component, identifier or canonical
 * metadata JSON can contain the separator (control characters are refused there), and metadata comes last.
 * The identity prefix and the holder prefix ({@link #holderPrefix}) make the identity check and the exact-holder
 * check one string comparison each in the script. Decoding reads the UTF-8 bytes the store replies with (a record
 * sent in parts without joining them), uses no regular expression, builds no map, and makes strings only of the
 * fields a record keeps.
 */
public final class StoredRecord {

	/** The field separator (U+001F unit separator). */
	public static final char SEP = '\u001f';

	static final String SEP_NAME = "U+001F";

	private StoredRecord() {
	}

	/** The identity prefix of the fixed part: the seven components in canonical order, each followed by SEP. */
	public static String identityPrefix(LockIdentity identity) {
		StringBuilder out = new StringBuilder(96);
		for (String component : identity.components()) {
			out.append(component).append(SEP);
		}
		return out.toString();
	}

	/** The exact-holder prefix: identity prefix, lease id, owner principal and service instance, each + SEP. */
	public static String holderPrefix(String identityPrefix, LeaseHandle handle) {
		return identityPrefix + handle.leaseId() + SEP + handle.ownerPrincipalId() + SEP + handle.serviceInstanceId()
				+ SEP;
	}

	/** The fixed part after the identity prefix, for a new lease. */
	public static String fixedRest(String leaseId, LeaseOwner owner, String executionId, String jobId, String traceId,
			String requestId, LeaseMetadata metadata) {
		return new StringBuilder(160).append(leaseId).append(SEP).append(owner.principalId()).append(SEP)
			.append(owner.serviceInstanceId()).append(SEP).append(owner.clientId()).append(SEP)
			.append(owner.credentialId()).append(SEP).append(executionId).append(SEP).append(jobId).append(SEP)
			.append(traceId).append(SEP).append(requestId).append(SEP).append(metadata.json()).toString();
	}

	/** The storage string of a record (tests, fixtures and the reference encoder). */
	public static String encode(LeaseRecord r) {
		return new StringBuilder(256).append('2').append(SEP).append(r.state().wireName()).append(SEP)
			.append(r.fencingToken()).append(SEP).append(r.acquiredAt().toEpochMilli()).append(SEP)
			.append(r.renewedAt().toEpochMilli()).append(SEP).append(r.expiresAt().toEpochMilli()).append(SEP)
			.append(r.ttlMs()).append(SEP).append(r.maximumLifetimeMs()).append(SEP)
			.append(identityPrefix(r.identity()))
			.append(fixedRest(r.leaseId(), r.owner(), r.executionId(), r.jobId(), r.traceId(), r.requestId(),
					r.metadata()))
			.toString();
	}

	/**
	 * Decodes a storage string strictly (see {@link #decode(byte[], int, LockIdentity)}).
	 * @throws CorruptRecordException when the text is not a valid v2 record of the expected identity
	 */
	public static LeaseRecord decode(String text, @Nullable LockIdentity expected) {
		return decode(text.getBytes(StandardCharsets.UTF_8), 0, expected);
	}

	/**
	 * Decodes the storage form held as UTF-8 bytes from {@code from} to the end of {@code record}, strictly.
	 * @param expected the identity the record must belong to (its components are compared in place, the object is
	 * reused), or {@code null} to build the identity from the stored components (validated)
	 * @throws CorruptRecordException when the bytes are not a valid v2 record of the expected identity
	 */
	public static LeaseRecord decode(byte[] record, int from, @Nullable LockIdentity expected) {
		Fields fields = new Fields(record, from, record.length);
		if (!fields.nextEquals("2")) {
			throw new CorruptRecordException("unknown storage encoding");
		}
		LeaseState state = fields.nextState();
		return decode(state, fields, fields, expected);
	}

	/**
	 * Decodes a record sent in the parts a store function holds it in, strictly: {@code state}, {@code tail} (the
	 * mutable fields after the state, each preceded by {@value #SEP_NAME}) and {@code fixed} (the fixed part), whose
	 * storage form is {@code '2' SEP state tail SEP fixed}. No joined copy is built.
	 * @throws CorruptRecordException when the parts are not a valid v2 record of the expected identity
	 */
	public static LeaseRecord decode(byte[] state, byte[] tail, byte[] fixed, @Nullable LockIdentity expected) {
		Fields stateField = new Fields(state, 0, state.length);
		LeaseState decoded = stateField.nextState();
		stateField.end();
		if (tail.length == 0 || tail[0] != SEP) {
			throw new CorruptRecordException("record has too few fields");
		}
		Fields times = new Fields(tail, 1, tail.length);
		return decode(decoded, times, new Fields(fixed, 0, fixed.length), expected);
	}

	/** The record from the six numbers {@code times} holds next and the fixed part {@code fixed} holds next. */
	private static LeaseRecord decode(LeaseState state, Fields times, Fields fixed, @Nullable LockIdentity expected) {
		long token = times.nextNumber();
		long acquired = times.nextNumber();
		long renewed = times.nextNumber();
		long expires = times.nextNumber();
		long ttl = times.nextNumber();
		long maximumLifetime = times.nextNumber();
		if (times != fixed) {
			times.end();
		}
		try {
			LockIdentity identity = identity(fixed, expected);
			String leaseId = fixed.next();
			String principal = fixed.next();
			String serviceInstance = fixed.next();
			LeaseOwner owner = new LeaseOwner(principal, fixed.next(), fixed.next(), serviceInstance);
			String executionId = fixed.next();
			String jobId = fixed.next();
			String traceId = fixed.next();
			String requestId = fixed.next();
			LeaseMetadata meta = fixed.metadata();
			return new LeaseRecord(identity, leaseId, owner, token, Instant.ofEpochMilli(acquired),
					Instant.ofEpochMilli(renewed), Instant.ofEpochMilli(expires), ttl, maximumLifetime, executionId,
					jobId, traceId, requestId, meta, state);
		}
		catch (InvalidLeaseRequestException | IllegalArgumentException ex) {
			throw new CorruptRecordException("record fails validation");
		}
	}

	private static LockIdentity identity(Fields fixed, @Nullable LockIdentity expected) {
		if (expected == null) {
			return new LockIdentity(fixed.next(), fixed.next(), fixed.next(), fixed.next(), fixed.next(), fixed.next(),
					fixed.next());
		}
		for (String component : expected.components()) {
			if (!fixed.nextEquals(component)) {
				throw new CorruptRecordException("stored tuple differs from the requested identity");
			}
		}
		return expected;
	}

	/**
	 * Reads the fields of one span of UTF-8 bytes in order: a field ends at the next {@value #SEP_NAME} or at the
	 * span's end (the separator byte never occurs inside a multi-byte UTF-8 sequence); reading past the end is a
	 * corrupt record. Only the fields a record keeps become strings.
	 */
	private static final class Fields {

		private final byte[] bytes;

		private final int to;

		private int at;

		Fields(byte[] bytes, int from, int to) {
			this.bytes = bytes;
			this.at = from;
			this.to = to;
		}

		/** The end of the next field. */
		private int fieldEnd() {
			if (this.at > this.to) {
				throw new CorruptRecordException("record has too few fields");
			}
			for (int i = this.at; i < this.to; i++) {
				if (this.bytes[i] == SEP) {
					return i;
				}
			}
			return this.to;
		}

		String next() {
			int end = fieldEnd();
			String text = new String(this.bytes, this.at, end - this.at, StandardCharsets.UTF_8);
			this.at = end + 1;
			return text;
		}

		boolean nextEquals(String value) {
			int from = this.at;
			int end = fieldEnd();
			this.at = end + 1;
			if (end - from != value.length()) {
				// equal lengths in bytes and chars only when both are ASCII; otherwise compare decoded
				return value.length() < end - from
						&& new String(this.bytes, from, end - from, StandardCharsets.UTF_8).equals(value);
			}
			for (int i = 0; i < value.length(); i++) {
				if (this.bytes[from + i] != value.charAt(i)) {
					return false;
				}
			}
			return true;
		}

		LeaseState nextState() {
			int from = this.at;
			int end = fieldEnd();
			this.at = end + 1;
			for (int i = 0; i < STATES.length; i++) {
				if (Arrays.equals(this.bytes, from, end, STATE_NAMES[i], 0, STATE_NAMES[i].length)) {
					return STATES[i];
				}
			}
			throw new CorruptRecordException("unknown state");
		}

		long nextNumber() {
			int from = this.at;
			int end = fieldEnd();
			this.at = end + 1;
			int length = end - from;
			if (length <= 0 || length > 16) {
				throw new CorruptRecordException("number out of range");
			}
			long value = 0;
			for (int i = from; i < end; i++) {
				byte b = this.bytes[i];
				if (b < '0' || b > '9') {
					throw new CorruptRecordException("not a decimal number");
				}
				value = value * 10 + (b - '0');
			}
			return value;
		}

		/** The rest of the span, the canonical metadata JSON that comes last. */
		LeaseMetadata metadata() {
			if (this.at > this.to) {
				throw new CorruptRecordException("record has too few fields");
			}
			int length = this.to - this.at;
			return (length == 2 && this.bytes[this.at] == '{' && this.bytes[this.at + 1] == '}') ? LeaseMetadata.empty()
					: LeaseMetadata.parse(new String(this.bytes, this.at, length, StandardCharsets.UTF_8));
		}

		/** Checks that the span held no more fields than were read. */
		void end() {
			if (this.at != this.to + 1) {
				throw new CorruptRecordException("record has too many fields");
			}
		}

	}

	private static final LeaseState[] STATES = LeaseState.values();

	private static final byte[][] STATE_NAMES = new byte[STATES.length][];

	static {
		for (int i = 0; i < STATES.length; i++) {
			STATE_NAMES[i] = STATES[i].wireName().getBytes(StandardCharsets.US_ASCII);
		}
	}

}
