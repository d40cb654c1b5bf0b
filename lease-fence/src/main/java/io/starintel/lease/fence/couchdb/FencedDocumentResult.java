package io.starintel.lease.fence.couchdb;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.fence.FencedWriteResult;

/**
 * Typed result of one document of a fenced bulk write (matched by id: pouchdb-server may reorder bulk results).
 *
 * @param id the document id
 * @param revision the new revision when accepted, else {@code null}
 * @param result the typed outcome of this document's write
 */
public record FencedDocumentResult(String id, @Nullable String revision, FencedWriteResult result) {

	/** Whether this document's write was accepted. */
	public boolean isAccepted() {
		return this.result.isAccepted();
	}

}
