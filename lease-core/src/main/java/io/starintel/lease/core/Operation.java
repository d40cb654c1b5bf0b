package io.starintel.lease.core;

/**
 * Mutating lease operations; each scopes its own idempotency records.
 *
 * <p>Contract: the idempotency key is scoped by operation, canonical lock key, owner principal and request id.
 */
public enum Operation {

	ACQUIRE("acquire"), RENEW("renew"), RELEASE("release"), FORCE_RELEASE("force_release"), REVOKE("revoke"),
	/** put-with-lease of an attached key. */
	ATTACH_PUT("attach_put"),
	/** delete of an attached key by its lease's holder. */
	ATTACH_DELETE("attach_delete");

	private final String wireName;

	Operation(String wireName) {
		this.wireName = wireName;
	}

	/** Stable wire name, used in idempotency keys and audit events. */
	public String wireName() {
		return this.wireName;
	}

	/** Looks an operation up by its wire name. */
	public static Operation fromWireName(String wireName) {
		for (Operation operation : values()) {
			if (operation.wireName.equals(wireName)) {
				return operation;
			}
		}
		throw new IllegalArgumentException("unknown operation");
	}

}
