package io.starintel.lease.store.redis;

import static io.starintel.lease.store.redis.ArgumentBytes.number;
import static io.starintel.lease.store.redis.IdentityKeys.bytes;

/**
 * The arguments every call of one store shares, as bytes built once: the policy text ({@link ArgumentBytes#policy}),
 * the principal an automatic failover recovery is recorded under (empty: manual recovery, the library refuses with
 * {@code recovery_required}) and the audit stream's approximate bound.
 */
record CallSettings(byte[] policy, byte[] recovery, byte[] auditLength) {

	static CallSettings of(byte[] policy, FailoverRecovery recovery, int auditLength) {
		byte[] principal = (recovery.mode() == FailoverRecovery.Mode.AUTOMATIC) ? bytes(recovery.principalId())
				: new byte[0];
		return new CallSettings(policy, principal, number(auditLength));
	}

}
