package io.starintel.lease.admin;

/**
 * Kind of an admin-endpoint credential. Contract: force-release and revoke need a distinct administrator credential,
 * one a worker's credential can never be; only {@link #ADMINISTRATOR} credentials may hold administrative capabilities.
 */
public enum CredentialKind {

	/** A worker or job credential (may read its scope). */
	WORKER,
	/** A human or tool operator (may read its scope). */
	OPERATOR,
	/** A distinct administrator credential (may force-release and revoke within its scope). */
	ADMINISTRATOR

}
