package io.starintel.lease.admin.internal;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.ProgramScope;

/**
 * The forged-fence recovery of one fenced CouchDB document as the admin endpoint calls it: lease-fence's
 * {@code FencedDocumentRecovery} when the application configures one
 * ({@code starintel.lease.fence.couchdb.recovery.*}).
 */
@FunctionalInterface
public interface DocumentFenceRecovery {

	/** No recovery configured: every call answers {@code null}. */
	DocumentFenceRecovery NONE = (scope, documentId, recoveryId) -> null;

	/**
	 * Recovers document {@code documentId} of the program {@code scope} if its fence is forged.
	 * @return what was done, or {@code null} when no recovery is configured
	 */
	@Nullable Outcome recover(ProgramScope scope, String documentId, String recoveryId);

	/**
	 * What a recovery did.
	 *
	 * @param status the recovery status as JSON spells it ({@code recovered}, {@code not_forged}, ...)
	 * @param replacedToken the token found on the document (0: none)
	 * @param token the document's token after a recovery (its identity's issued counter), else 0
	 * @param restoredRevision the revision whose content was restored, {@code null} for a fenced tombstone or when
	 * nothing was written
	 */
	record Outcome(String status, long replacedToken, long token, @Nullable String restoredRevision) {

	}

}
