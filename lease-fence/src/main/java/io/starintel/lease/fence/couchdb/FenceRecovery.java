package io.starintel.lease.fence.couchdb;

import org.jspecify.annotations.Nullable;

/**
 * The result of one {@link FencedDocumentRecovery#recover recovery}.
 *
 * @param status what was done
 * @param replacedToken the token of the fence found on the document (0 when there was none)
 * @param token the token the document carries now when {@link FenceRecoveryStatus#RECOVERED} (its identity's
 * issued fencing counter), else 0
 * @param restoredFrom the revision whose content was restored, or {@code null} when the document became a fenced
 * tombstone (no earlier revision with an issued token is still on disk) or nothing was written
 * @param revision the document's new revision when {@link FenceRecoveryStatus#RECOVERED}
 */
public record FenceRecovery(FenceRecoveryStatus status, long replacedToken, long token,
		@Nullable String restoredFrom, @Nullable String revision) {

	static FenceRecovery of(FenceRecoveryStatus status, long replacedToken) {
		return new FenceRecovery(status, replacedToken, 0, null, null);
	}

	/** Whether the document was rewritten. */
	public boolean isRecovered() {
		return this.status == FenceRecoveryStatus.RECOVERED;
	}

}
