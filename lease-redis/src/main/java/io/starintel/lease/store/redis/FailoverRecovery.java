package io.starintel.lease.store.redis;

import io.starintel.lease.core.internal.Identifiers;

/**
 * What the store does when it finds a program whose state was written under another node than the one serving it
 * now (a promoted replica, a restarted or restored server: {@code recovery_required}).
 *
 * <p>Contract: "Before a restored namespace accepts work, recovery [...] invalidates all restored active leases, and
 * requires new acquisition". {@link Mode#AUTOMATIC} (the default) runs that recovery at once, under the service's
 * identity: the first call that meets the program revokes its active leases (each revocation written to the
 * program's audit stream with {@code principalId}, {@code credentialId} and the reason "automatic failover recovery"),
 * then goes on; the holders of the revoked leases see {@code lease_lost} and acquire again with a higher token.
 * {@link Mode#MANUAL} answers {@code lease_backend_unavailable} ({@code recovery_required}) until an operator runs
 * the recovery ({@link RedisLeaseStore#recoverPromotedPrograms}, the admin endpoint or the console).
 *
 * @param mode automatic or manual
 * @param principalId the principal recorded with automatic revocations
 * @param credentialId the non-secret credential id recorded with them
 */
public record FailoverRecovery(Mode mode, String principalId, String credentialId) {

	/** Whether the store recovers by itself. */
	public enum Mode {

		/** Recover on first contact, under the service's identity (audited). */
		AUTOMATIC,
		/** Refuse until an operator recovers. */
		MANUAL

	}

	/** The reason recorded with automatic revocations. */
	public static final String AUTOMATIC_REASON = "automatic failover recovery: the program's primary was promoted, "
			+ "restarted or restored";

	public FailoverRecovery {
		Identifiers.require("principal_id", principalId);
		Identifiers.require("credential_id", credentialId);
	}

	/** Automatic recovery, recorded under {@code principalId} with credential id {@code automatic-recovery}. */
	public static FailoverRecovery automatic(String principalId) {
		return new FailoverRecovery(Mode.AUTOMATIC, principalId, "automatic-recovery");
	}

	/** Manual recovery only. */
	public static FailoverRecovery manual() {
		return new FailoverRecovery(Mode.MANUAL, "none", "none");
	}

}
