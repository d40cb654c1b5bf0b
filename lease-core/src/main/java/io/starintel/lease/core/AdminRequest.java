package io.starintel.lease.core;

import java.time.Instant;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.internal.RequestDigest;

/**
 * Input of the privileged force-release and revoke operations.
 *
 * <p>Contract: both compare against the observed active lease (lease id and fencing token) so they cannot
 * remove an unseen successor, and both require a distinct administrator credential and a bounded reason or
 * incident id. Authorization itself is checked by the caller (the admin module); the store records the
 * administrator and reason with the terminal evidence.
 */
public record AdminRequest(Operation operation, LockIdentity identity, String requestId, Instant deadlineAt,
		String expectedLeaseId, long expectedFencingToken, String adminPrincipalId, String adminCredentialId,
		String reason) implements MutatingRequest {

	/** Maximum length of a reason or incident id, in characters. */
	public static final int MAX_REASON_LENGTH = 512;

	/** Validates presence, identifiers and the reason's bounds. */
	public AdminRequest {
		if (operation != Operation.FORCE_RELEASE && operation != Operation.REVOKE) {
			throw new InvalidLeaseRequestException("operation", "must be force_release or revoke");
		}
		RequestFields.requireIdentity(identity);
		Identifiers.require("request_id", requestId);
		RequestFields.requireDeadline(deadlineAt);
		Identifiers.require("lease_id", expectedLeaseId);
		if (expectedFencingToken <= 0 || expectedFencingToken >= LeaseRecord.MAX_FENCING_TOKEN) {
			throw new InvalidLeaseRequestException("fencing_token", "out of range");
		}
		Identifiers.require("admin_principal_id", adminPrincipalId);
		Identifiers.require("admin_credential_id", adminCredentialId);
		RequestFields.requireReason(reason);
	}

	/**
	 * Checks an administrator's reason or incident id: 1..{@value #MAX_REASON_LENGTH} characters, not blank, no
	 * control, format or line separator characters and no unpaired surrogate (the one home of the rule, shared by
	 * force-release, revoke and recovery; the characters: {@code PlainText}).
	 * @throws InvalidLeaseRequestException naming {@code reason}
	 */
	public static void requireValidReason(String reason) {
		RequestFields.requireReason(reason);
	}

	@Override
	public String principalId() {
		return this.adminPrincipalId;
	}

	@Override
	public String digest() {
		return RequestDigest.of(this.operation, this.identity.lockKey(), this.expectedLeaseId,
				this.expectedFencingToken, this.adminPrincipalId, this.adminCredentialId, this.reason);
	}

}
