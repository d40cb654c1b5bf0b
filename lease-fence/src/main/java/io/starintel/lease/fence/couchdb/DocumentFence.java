package io.starintel.lease.fence.couchdb;

import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.fence.FenceStamp;

/**
 * The fence of one revision of a fenced CouchDB document, and the rule that decides whether the lease store issued
 * it: the one home of that rule for {@link FencedCouchDbReader} (which leaves may be read as current) and
 * {@link FencedDocumentRecovery} (which fences are forged, which revisions may be restored).
 *
 * <p>Why a rule beyond "not above the issued counter": tokens are time-based, so a forged token a little above the
 * counter falls below it as soon as a later lease of the identity is acquired, and the design document accepts any
 * higher token. Only the pair (lease id, token) tells an issued fence from a forged one, as the consumer fence
 * ({@code fence.lua}'s {@code consume}) decides it. The pair of an old lease cannot always be asked about (the lease
 * store keeps an ended lease's evidence for a while), but the document's durable mark can: every accepted fenced
 * write raises it to its token and keeps its lease id. So a revision's fence is <em>issued</em> for the document's
 * identity when it is well formed, names that identity, is not above the identity's issued counter, and
 * <ul>
 * <li>its token is below the mark (history the mark has passed: a reader reports it as {@code BELOW_MARK} when it is
 * the best, never as current), or</li>
 * <li>its token is the mark's and its lease id the one the mark kept (any lease id for a mark kept before lease ids
 * were), or</li>
 * <li>its token is above the mark (a write whose mark is pending) and the lease store still names that lease with that
 * token for the identity, or</li>
 * <li>it is a recovery's fence ({@code recovery}: only a user with the recovery role can write one, design document
 * rule 7).</li>
 * </ul>
 * Anything else is forged: also a fence of an identity the store never issued a lease for, a digest that is not one,
 * and a token that is not a positive integer.
 */
record DocumentFence(String digest, long token, String leaseId, boolean recovery) {

	private static final Pattern DIGEST = Pattern.compile("[A-Za-z0-9_-]{43}");

	private static final ObjectMapper JSON = new ObjectMapper();

	/** The fence of a document read as JSON; {@code null} when it has none or it is malformed. */
	static @Nullable DocumentFence of(JsonNode document) {
		JsonNode fence = document.get(FenceStamp.FIELD);
		if (fence == null || !fence.isObject()) {
			return null;
		}
		JsonNode digest = fence.get("lock_key_digest");
		JsonNode token = fence.get("fencing_token");
		JsonNode leaseId = fence.get("lease_id");
		// integral JSON numbers only: canConvertToLong also takes 5.5 (and would read it as 5)
		if (digest == null || !digest.isTextual() || !DIGEST.matcher(digest.asText()).matches() || token == null
				|| !token.isIntegralNumber() || !token.canConvertToLong() || leaseId == null || !leaseId.isTextual()
				|| leaseId.asText().isEmpty()) {
			return null;
		}
		long value = token.asLong();
		if (value < 1 || value > LeaseRecord.MAX_FENCING_TOKEN) {
			return null;
		}
		JsonNode recovery = fence.get("recovery");
		return new DocumentFence(digest.asText(), value, leaseId.asText(), recovery != null && recovery.isObject());
	}

	/** The fence of a document read as a map; {@code null} when it has none or it is malformed. */
	static @Nullable DocumentFence of(Map<?, ?> document) {
		Object fence = document.get(FenceStamp.FIELD);
		if (!(fence instanceof Map<?, ?>)) {
			return null;
		}
		JsonNode wrapped = JSON.createObjectNode().set(FenceStamp.FIELD, JSON.valueToTree(fence));
		return of(wrapped);
	}

	/** Whether a document carries a fence field at all (well formed or not). */
	static boolean present(JsonNode document) {
		return document.has(FenceStamp.FIELD);
	}

	/**
	 * Whether this fence was issued for {@code identity}, by the rule above.
	 * @param identity the document's identity (its mark's, else its own); {@code null}: none is known
	 * @param checked the document's mark read
	 * @param pairIssued whether the lease store names this fence's lease with its token for the identity; asked only
	 * for a token above the mark
	 */
	boolean issued(@Nullable String identity, DocumentMarkStore.Checked checked, BooleanSupplier pairIssued) {
		DocumentMarkStore.Mark mark = checked.mark();
		if (identity == null || !identity.equals(this.digest) || mark.issuedCounter() < 1
				|| this.token > mark.issuedCounter()) {
			return false;
		}
		if (this.recovery || this.token < mark.token()) {
			return true;
		}
		if (this.token == mark.token()) {
			return checked.markLeaseId() == null || checked.markLeaseId().equals(this.leaseId);
		}
		return pairIssued.getAsBoolean();
	}

	/** The claim to ask the lease store about. */
	DocumentMarkStore.Claim claim() {
		return new DocumentMarkStore.Claim(this.leaseId, this.token);
	}

}
