package io.starintel.lease.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

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
		String[] f = new String[HEAD_FIELDS + 16];
		int start = 0;
		for (int i = 0; i < f.length; i++) {
			int end = text.indexOf(SEP, start);
			if (end < 0) {
				throw new CorruptRecordException("record has too few fields");
			}
			f[i] = text.substring(start, end);
			start = end + 1;
		}
		String metadata = text.substring(start);
		if (!"2".equals(f[0])) {
			throw new CorruptRecordException("unknown storage encoding");
		}
		try {
			LockIdentity identity = identity(f, expected);
			LeaseMetadata meta = "{}".equals(metadata) ? LeaseMetadata.empty() : LeaseMetadata.parse(metadata);
			LeaseOwner owner = new LeaseOwner(f[16], f[18], f[19], f[17]);
			return new LeaseRecord(identity, f[15], owner, number(f[2]), Instant.ofEpochMilli(number(f[3])),
					Instant.ofEpochMilli(number(f[4])), Instant.ofEpochMilli(number(f[5])), number(f[6]),
					number(f[7]), f[20], f[21], f[22], f[23], meta, LeaseState.fromWireName(f[1]));
		}
		catch (InvalidLeaseRequestException | IllegalArgumentException ex) {
			throw new CorruptRecordException("record fails validation");
		}
	}

	private static LockIdentity identity(String[] f, @Nullable LockIdentity expected) {
		if (expected == null) {
			return new LockIdentity(f[8], f[9], f[10], f[11], f[12], f[13], f[14]);
		}
		if (!expected.tenantId().equals(f[8]) || !expected.programId().equals(f[9])
				|| !expected.targetNamespace().equals(f[10]) || !expected.targetId().equals(f[11])
				|| !expected.actorName().equals(f[12]) || !expected.workflowName().equals(f[13])
				|| !expected.operationClass().equals(f[14])) {
			throw new CorruptRecordException("stored tuple differs from the requested identity");
		}
		return expected;
	}

	/** A non-negative decimal of at most 16 digits, parsed without a regular expression. */
	static long number(String text) {
		int length = text.length();
		if (length == 0 || length > 16) {
			throw new CorruptRecordException("number out of range");
		}
		long value = 0;
		for (int i = 0; i < length; i++) {
			char c = text.charAt(i);
			if (c < '0' || c > '9') {
				throw new CorruptRecordException("not a decimal number");
			}
			value = value * 10 + (c - '0');
		}
		return value;
	}

}
