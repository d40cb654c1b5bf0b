package io.starintel.lease.fence.amqp;

/**
 * Why the consumer guard rejected a delivery. The {@code forged_*} reasons name messages that no lease of the store
 * can have published; they never move the consumed high-water mark.
 */
public enum ConsumeRejection {

	/** No (valid) fence headers on a fenced consumer. */
	MISSING_OR_MALFORMED_FENCE("missing_or_malformed_fence"),
	/**
	 * A producer batch ({@link FenceHeaders#isProducerBatch}): its messages went out under one set of fence headers,
	 * those of whichever thread released the batch, so one stamp cannot vouch for each of them. Never moves the mark.
	 */
	BATCHED_MESSAGE("batched_message"),
	/** The token is below the highest token already accepted for the identity. */
	TOKEN_BELOW_HIGH_WATER_MARK("token_below_high_water_mark"),
	/** The token is above the highest token the lease store ever issued for the identity. */
	FORGED_TOKEN_ABOVE_ISSUED_COUNTER("forged_token_above_issued_counter"),
	/** The lease id is neither the identity's active lease nor one in its terminal history. */
	FORGED_UNKNOWN_LEASE_ID("forged_unknown_lease_id"),
	/** The lease exists but was issued with another token (or the token was accepted for another lease). */
	FORGED_LEASE_ID_MISMATCH("forged_lease_id_mismatch"),
	/** The stored mark is not a number: nothing is accepted over it. */
	CORRUPT_RECORD("corrupt_record");

	private final String wireName;

	ConsumeRejection(String wireName) {
		this.wireName = wireName;
	}

	/** Stable wire name (log, audit, metric tag). */
	public String wireName() {
		return this.wireName;
	}

	/** Whether the message can only have been forged. */
	public boolean isForged() {
		return name().startsWith("FORGED_");
	}

}
