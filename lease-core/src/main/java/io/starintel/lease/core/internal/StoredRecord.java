package io.starintel.lease.core.internal;

import java.time.Instant;

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
 * check one string comparison each in the script. Decoding uses no regular expression and builds no map.
 */
public final class StoredRecord {

	/** The field separator (U+001F unit separator). */
	public static final char SEP = '\u001f';

	static final String SEP_NAME = "U+001F";

	/** Number of separators before the fixed part: version and the seven mutable fields. */
	private static final int HEAD_FIELDS = 8;

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
	 * Decodes a storage string strictly.
	 * @param expected the identity the record must belong to (its components are compared, the object is reused),
	 * or {@code null} to build the identity from the stored components (validated)
	 * @throws CorruptRecordException when the text is not a valid v2 record of the expected identity
	 */
	public static LeaseRecord decode(String text, @Nullable LockIdentity expected) {
		// field boundaries first: only the fields that are needed become strings (the identity is compared in place)
		int[] ends = new int[HEAD_FIELDS + 16];
		int start = 0;
		for (int i = 0; i < ends.length; i++) {
			int end = text.indexOf(SEP, start);
			if (end < 0) {
				throw new CorruptRecordException("record has too few fields");
			}
			ends[i] = end;
			start = end + 1;
		}
		if (ends[0] != 1 || text.charAt(0) != '2') {
			throw new CorruptRecordException("unknown storage encoding");
		}
		try {
			LockIdentity identity = identity(text, ends, expected);
			LeaseMetadata meta = (text.length() - start == 2 && text.startsWith("{}", start)) ? LeaseMetadata.empty()
					: LeaseMetadata.parse(text.substring(start));
			LeaseOwner owner = new LeaseOwner(field(text, ends, 16), field(text, ends, 18), field(text, ends, 19),
					field(text, ends, 17));
			return new LeaseRecord(identity, field(text, ends, 15), owner, number(text, ends, 2),
					Instant.ofEpochMilli(number(text, ends, 3)), Instant.ofEpochMilli(number(text, ends, 4)),
					Instant.ofEpochMilli(number(text, ends, 5)), number(text, ends, 6), number(text, ends, 7),
					field(text, ends, 20), field(text, ends, 21), field(text, ends, 22), field(text, ends, 23), meta,
					LeaseState.fromWireName(field(text, ends, 1)));
		}
		catch (InvalidLeaseRequestException | IllegalArgumentException ex) {
			throw new CorruptRecordException("record fails validation");
		}
	}

	private static int from(int[] ends, int i) {
		return (i == 0) ? 0 : ends[i - 1] + 1;
	}

	private static String field(String text, int[] ends, int i) {
		return text.substring(from(ends, i), ends[i]);
	}

	private static boolean fieldEquals(String text, int[] ends, int i, String value) {
		int from = from(ends, i);
		return ends[i] - from == value.length() && text.startsWith(value, from);
	}

	private static long number(String text, int[] ends, int i) {
		return number(text, from(ends, i), ends[i]);
	}

	private static LockIdentity identity(String text, int[] ends, @Nullable LockIdentity expected) {
		if (expected == null) {
			return new LockIdentity(field(text, ends, 8), field(text, ends, 9), field(text, ends, 10),
					field(text, ends, 11), field(text, ends, 12), field(text, ends, 13), field(text, ends, 14));
		}
		if (!fieldEquals(text, ends, 8, expected.tenantId()) || !fieldEquals(text, ends, 9, expected.programId())
				|| !fieldEquals(text, ends, 10, expected.targetNamespace())
				|| !fieldEquals(text, ends, 11, expected.targetId())
				|| !fieldEquals(text, ends, 12, expected.actorName())
				|| !fieldEquals(text, ends, 13, expected.workflowName())
				|| !fieldEquals(text, ends, 14, expected.operationClass())) {
			throw new CorruptRecordException("stored tuple differs from the requested identity");
		}
		return expected;
	}

	/** A non-negative decimal of at most 16 digits, parsed without a regular expression. */
	static long number(String text) {
		return number(text, 0, text.length());
	}

	private static long number(String text, int from, int to) {
		int length = to - from;
		if (length <= 0 || length > 16) {
			throw new CorruptRecordException("number out of range");
		}
		long value = 0;
		for (int i = from; i < to; i++) {
			char c = text.charAt(i);
			if (c < '0' || c > '9') {
				throw new CorruptRecordException("not a decimal number");
			}
			value = value * 10 + (c - '0');
		}
		return value;
	}

}
