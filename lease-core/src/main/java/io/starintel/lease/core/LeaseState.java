package io.starintel.lease.core;

/**
 * Externally observable lease states of the contract; there is no permanent mutex state.
 */
public enum LeaseState {

	ACTIVE("active"), EXPIRED("expired"), RELEASED("released"), REVOKED("revoked");

	private final String wireName;

	LeaseState(String wireName) {
		this.wireName = wireName;
	}

	/** Stable wire name. */
	public String wireName() {
		return this.wireName;
	}

	/** Whether the state is terminal (contract: no terminal record ever becomes active again). */
	public boolean isTerminal() {
		return this != ACTIVE;
	}

	private static final LeaseState[] VALUES = values();

	/** Looks a state up by its wire name. */
	public static LeaseState fromWireName(String wireName) {
		for (LeaseState state : VALUES) {
			if (state.wireName.equals(wireName)) {
				return state;
			}
		}
		throw new IllegalArgumentException("unknown lease state");
	}

}
