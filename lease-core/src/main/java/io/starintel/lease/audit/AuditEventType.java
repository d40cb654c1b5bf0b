package io.starintel.lease.audit;

/**
 * The closed set of audit event types of the target-lease contract.
 *
 * <p>Contract: "Events use a closed event_type such as target_lease_acquire, target_lease_renew, ...". Expiry has
 * its own type, {@code target_lease_expire}; a granted commit authorization requested over HTTP is
 * {@code target_lease_commit_authorize} and a resolve by request id {@code target_lease_resolve}. No other value is
 * ever written.
 */
public enum AuditEventType {

	ACQUIRE("target_lease_acquire"),
	RENEW("target_lease_renew"),
	RELEASE("target_lease_release"),
	FORCE_RELEASE("target_lease_force_release"),
	REVOKE("target_lease_revoke"),
	INSPECT("target_lease_inspect"),
	LIST("target_lease_list"),
	COMMIT_REJECTED("target_lease_commit_rejected"),
	/** A commit authorization the store granted (a job's fenced write or publish, or the worker API); rejections are COMMIT_REJECTED. */
	COMMIT_AUTHORIZE("target_lease_commit_authorize"),
	/** A resolve by request id of an earlier acquire, renew or release. */
	RESOLVE("target_lease_resolve"),
	/**
	 * An attached-key operation (put, get, delete or list; the reason names which, e.g. {@code attach_put:none}); the
	 * event never carries a key name or value.
	 */
	ATTACH("target_lease_attach"),
	EXPIRE("target_lease_expire");

	private final String wireName;

	AuditEventType(String wireName) {
		this.wireName = wireName;
	}

	/** Stable wire name, e.g. {@code target_lease_revoke}. */
	public String wireName() {
		return this.wireName;
	}

	/** Whether the event records a high-risk administrative transition that needs durable audit before success. */
	public boolean isAdministrative() {
		return this == FORCE_RELEASE || this == REVOKE;
	}

}
