package io.starintel.lease.fence.couchdb;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import org.ektorp.AttachmentInputStream;
import org.ektorp.CouchDbConnector;
import org.ektorp.DocumentOperationResult;
import org.ektorp.Options;
import org.ektorp.PurgeResult;
import org.ektorp.UpdateHandlerRequest;
import org.ektorp.util.Documents;
import org.jspecify.annotations.Nullable;

import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.fence.FencedWriteRejectedException;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.fence.couchdb.internal.FenceDesignDocument;

/**
 * Ektorp's {@link CouchDbConnector} over {@link FencedDocuments}: {@code create}, {@code update}, {@code delete} and
 * {@code executeBulk} are the fenced writes (the {@code try*} methods are the same calls with typed results) and throw
 * {@link FencedWriteRejectedException} unless accepted. Writes that cannot carry a stamp (attachments, copy, purge,
 * update handlers, streams, the bulk buffer) throw {@link UnsupportedOperationException}: use {@link #delegate()}
 * deliberately for unfenced data. Reads and administration are forwarded ({@link ReadForwardingCouchDbConnector}).
 */
public final class FencedCouchDbConnector extends ReadForwardingCouchDbConnector {

	/** Top-level field of a fenced tombstone (see {@link FencedDocuments#DELETED_FIELD}). */
	public static final String DELETED_FIELD = FencedDocuments.DELETED_FIELD;

	private final FencedDocuments documents;

	/** Decorates {@code delegate}; every write is authorized by {@code guard}; no durable marks are kept. */
	public FencedCouchDbConnector(CouchDbConnector delegate, FenceGuard guard) {
		this(delegate, guard, null);
	}

	/**
	 * Decorates {@code delegate}; every accepted write also raises the document's durable mark in {@code marks}
	 * (what {@link FencedCouchDbReader} compares with, so a purged and re-created stale document is reported).
	 */
	public FencedCouchDbConnector(CouchDbConnector delegate, FenceGuard guard, @Nullable DocumentMarkStore marks) {
		super(delegate);
		this.documents = new FencedDocuments(delegate, guard, marks);
	}

	/** The undecorated connector (unfenced: for reads, design documents and deliberate unfenced data). */
	public CouchDbConnector delegate() {
		return this.documents.raw();
	}

	/** The fenced writes with typed results. */
	public FencedDocuments documents() {
		return this.documents;
	}

	/**
	 * Installs or upgrades {@code _design/starintel_fence} through the undecorated connector, idempotently and safely
	 * from several instances (as the auto-configuration does at start-up); returns the installed version.
	 */
	public int installDesignDocument() {
		return FenceDesignDocument.install(delegate());
	}

	/** See {@link FencedDocuments#tryCreate(Object)}. */
	public FencedWriteResult tryCreate(Object document) {
		return this.documents.tryCreate(document);
	}

	/** See {@link FencedDocuments#tryCreate(String, Object)}. */
	public FencedWriteResult tryCreate(String id, Object document) {
		return this.documents.tryCreate(id, document);
	}

	/** See {@link FencedDocuments#tryUpdate(Object)}. */
	public FencedWriteResult tryUpdate(Object document) {
		return this.documents.tryUpdate(document);
	}

	/** See {@link FencedDocuments#tryDelete(String, String)}. */
	public FencedWriteResult tryDelete(String id, String revision) {
		return this.documents.tryDelete(id, revision);
	}

	/** See {@link FencedDocuments#tryDelete(Object)}. */
	public FencedWriteResult tryDelete(Object document) {
		return this.documents.tryDelete(document);
	}

	/** See {@link FencedDocuments#tryExecuteBulk(Collection)}. */
	public List<FencedDocumentResult> tryExecuteBulk(Collection<?> documents) {
		return this.documents.tryExecuteBulk(documents);
	}

	// ---- fenced writes of the CouchDbConnector interface

	@Override
	public void create(String id, Object document) {
		requireAccepted(tryCreate(id, document));
	}

	@Override
	public void create(Object document) {
		requireAccepted(tryCreate(document));
	}

	@Override
	public void update(Object document) {
		requireAccepted(tryUpdate(document));
	}

	@Override
	public String delete(Object document) {
		return delete(Documents.getId(document), Documents.getRevision(document));
	}

	@Override
	public String delete(String id, String revision) {
		Map<String, Object> tombstone = FencedDocuments.tombstone(id, revision);
		requireAccepted(this.documents.writeTombstone(tombstone));
		return Documents.getRevision(tombstone);
	}

	/** Per-document refusals are reported like Ektorp's errors, with the typed outcome's wire name as error. */
	@Override
	public List<DocumentOperationResult> executeBulk(Collection<?> documents) {
		return toOperationResults(tryExecuteBulk(documents));
	}

	/** As {@link #executeBulk(Collection)}: CouchDB 2+ no longer offers all-or-nothing semantics. */
	@Override
	public List<DocumentOperationResult> executeAllOrNothing(Collection<?> documents) {
		return toOperationResults(tryExecuteBulk(documents));
	}

	// ---- writes that cannot carry a fence stamp

	@Override
	public String copy(String sourceId, String targetId) {
		throw notFenced("copy");
	}

	@Override
	public String copy(String sourceId, String targetId, String targetRevision) {
		throw notFenced("copy");
	}

	@Override
	public PurgeResult purge(Map<String, List<String>> revisionsToPurge) {
		throw notFenced("purge");
	}

	@Override
	public String createAttachment(String documentId, AttachmentInputStream data) {
		throw notFenced("createAttachment");
	}

	@Override
	public String createAttachment(String documentId, String revision, AttachmentInputStream data) {
		throw notFenced("createAttachment");
	}

	@Override
	public String deleteAttachment(String documentId, String revision, String attachmentId) {
		throw notFenced("deleteAttachment");
	}

	@Override
	public List<DocumentOperationResult> executeBulk(InputStream documents) {
		throw notFenced("executeBulk");
	}

	@Override
	public List<DocumentOperationResult> executeAllOrNothing(InputStream documents) {
		throw notFenced("executeAllOrNothing");
	}

	@Override
	public String callUpdateHandler(String designDocumentId, String function, String documentId) {
		throw notFenced("callUpdateHandler");
	}

	@Override
	public String callUpdateHandler(String designDocumentId, String function, String documentId,
			Map<String, String> parameters) {
		throw notFenced("callUpdateHandler");
	}

	@Override
	public <T> T callUpdateHandler(UpdateHandlerRequest request, Class<T> type) {
		throw notFenced("callUpdateHandler");
	}

	@Override
	public String callUpdateHandler(UpdateHandlerRequest request) {
		throw notFenced("callUpdateHandler");
	}

	@Override
	public void updateMultipart(String id, InputStream stream, String boundary, long length, Options options) {
		throw notFenced("updateMultipart");
	}

	@Override
	public void update(String id, InputStream document, long length, Options options) {
		throw notFenced("update");
	}

	@Override
	public void addToBulkBuffer(Object document) {
		throw notFenced("addToBulkBuffer");
	}

	@Override
	public List<DocumentOperationResult> flushBulkBuffer() {
		throw notFenced("flushBulkBuffer");
	}

	/** Nothing can have been buffered ({@link #addToBulkBuffer} is refused): forwarded unchanged. */
	@Override
	public void clearBulkBuffer() {
		delegate().clearBulkBuffer();
	}

	private static UnsupportedOperationException notFenced(String operation) {
		return new UnsupportedOperationException(operation
				+ " cannot carry a fence stamp; use create/update/delete/executeBulk, or delegate() for unfenced data");
	}

	private static void requireAccepted(FencedWriteResult result) {
		if (!result.isAccepted()) {
			throw new FencedWriteRejectedException(result);
		}
	}

	private static List<DocumentOperationResult> toOperationResults(List<FencedDocumentResult> results) {
		List<DocumentOperationResult> errors = new ArrayList<>();
		for (FencedDocumentResult result : results) {
			if (!result.isAccepted()) {
				FencedWriteResult typed = result.result();
				errors.add(DocumentOperationResult.newInstance(result.id(), typed.outcome().wireName(),
						(typed.detail() != null) ? typed.detail() : typed.reason().wireName()));
			}
		}
		return errors;
	}

}
