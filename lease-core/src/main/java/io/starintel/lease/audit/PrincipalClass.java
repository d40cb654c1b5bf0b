package io.starintel.lease.audit;

/**
 * Class of the principal behind an audited request (contract: "principal class/id").
 */
public enum PrincipalClass {

	/** A worker or job credential that acquires, renews, releases and commits. */
	WORKER("worker"),
	/** An administrator credential (force-release, revoke). */
	ADMINISTRATOR("administrator"),
	/** A read-only operator credential. */
	OPERATOR("operator"),
	/** No authenticated principal (the request failed authentication). */
	ANONYMOUS("anonymous");

	private final String wireName;

	PrincipalClass(String wireName) {
		this.wireName = wireName;
	}

	/** Stable wire name. */
	public String wireName() {
		return this.wireName;
	}

}
