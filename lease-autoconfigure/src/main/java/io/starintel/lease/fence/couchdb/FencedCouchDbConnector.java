package io.starintel.lease.fence.couchdb;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import org.ektorp.AttachmentInputStream;
import org.ektorp.CouchDbConnector;
import org.ektorp.DbInfo;
import org.ektorp.DesignDocInfo;
import org.ektorp.DocumentOperationResult;
import org.ektorp.Options;
import org.ektorp.Page;
import org.ektorp.PageRequest;
import org.ektorp.PurgeResult;
import org.ektorp.ReplicationStatus;
import org.ektorp.Revision;
import org.ektorp.Security;
import org.ektorp.Status;
import org.ektorp.StreamingChangesResult;
import org.ektorp.StreamingViewResult;
import org.ektorp.UpdateHandlerRequest;
import org.ektorp.ViewQuery;
import org.ektorp.ViewResult;
import org.ektorp.changes.ChangesCommand;
import org.ektorp.changes.ChangesFeed;
import org.ektorp.changes.DocumentChange;
import org.ektorp.http.HttpClient;
import org.ektorp.util.Documents;
import org.jspecify.annotations.Nullable;

import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.fence.FencedWriteRejectedException;
import io.starintel.lease.fence.FencedWriteResult;

/**
 * Ektorp's {@link CouchDbConnector} with fenced writes: {@code create}, {@code update}, {@code delete} and
 * {@code executeBulk} go through {@link FencedDocuments} (the typed {@code try*} methods here are the same calls)
 * and throw {@link FencedWriteRejectedException} for anything but acceptance. Writes that cannot carry a stamp
 * (attachments, copy, purge, update handlers, streams, the bulk buffer) throw {@link UnsupportedOperationException}:
 * use {@link #delegate()} deliberately for unfenced data. Reads go to the undecorated connector unchanged.
 *
 * <p>Why the reads are written out: this class is the bean type applications inject (and hand to Ektorp's
 * repositories as a {@link CouchDbConnector}), so it has to be a class implementing the interface; a
 * {@code java.lang.reflect.Proxy} cannot be that class, and Ektorp has no forwarding base class.
 */
public final class FencedCouchDbConnector implements CouchDbConnector {

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
	public FencedCouchDbConnector(CouchDbConnector delegate, FenceGuard guard, @Nullable CouchDbFenceMarks marks) {
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

	// ---- reads and administration: the undecorated connector

	@Override
	public <T> T get(Class<T> type, String id) {
		return this.documents.raw().get(type, id);
	}

	@Override
	public <T> T get(Class<T> type, String id, Options options) {
		return this.documents.raw().get(type, id, options);
	}

	@Override
	public <T> T find(Class<T> type, String id) {
		return this.documents.raw().find(type, id);
	}

	@Override
	public <T> T find(Class<T> type, String id, Options options) {
		return this.documents.raw().find(type, id, options);
	}

	@Override
	public <T> T get(Class<T> type, String id, String revision) {
		return this.documents.raw().get(type, id, revision);
	}

	@Override
	public <T> T getWithConflicts(Class<T> type, String id) {
		return this.documents.raw().getWithConflicts(type, id);
	}

	@Override
	public boolean contains(String id) {
		return this.documents.raw().contains(id);
	}

	@Override
	public InputStream getAsStream(String id) {
		return this.documents.raw().getAsStream(id);
	}

	@Override
	public InputStream getAsStream(String id, String revision) {
		return this.documents.raw().getAsStream(id, revision);
	}

	@Override
	public InputStream getAsStream(String id, Options options) {
		return this.documents.raw().getAsStream(id, options);
	}

	@Override
	public List<Revision> getRevisions(String id) {
		return this.documents.raw().getRevisions(id);
	}

	@Override
	public String getCurrentRevision(String id) {
		return this.documents.raw().getCurrentRevision(id);
	}

	@Override
	public AttachmentInputStream getAttachment(String id, String attachmentId) {
		return this.documents.raw().getAttachment(id, attachmentId);
	}

	@Override
	public AttachmentInputStream getAttachment(String id, String attachmentId, String revision) {
		return this.documents.raw().getAttachment(id, attachmentId, revision);
	}

	@Override
	public List<String> getAllDocIds() {
		return this.documents.raw().getAllDocIds();
	}

	@Override
	public <T> List<T> queryView(ViewQuery query, Class<T> type) {
		return this.documents.raw().queryView(query, type);
	}

	@Override
	public <T> Page<T> queryForPage(ViewQuery query, PageRequest pageRequest, Class<T> type) {
		return this.documents.raw().queryForPage(query, pageRequest, type);
	}

	@Override
	public ViewResult queryView(ViewQuery query) {
		return this.documents.raw().queryView(query);
	}

	@Override
	public StreamingViewResult queryForStreamingView(ViewQuery query) {
		return this.documents.raw().queryForStreamingView(query);
	}

	@Override
	public InputStream queryForStream(ViewQuery query) {
		return this.documents.raw().queryForStream(query);
	}

	@Override
	public void createDatabaseIfNotExists() {
		this.documents.raw().createDatabaseIfNotExists();
	}

	@Override
	public String getDatabaseName() {
		return this.documents.raw().getDatabaseName();
	}

	@Override
	public String path() {
		return this.documents.raw().path();
	}

	@Override
	public HttpClient getConnection() {
		return this.documents.raw().getConnection();
	}

	@Override
	public DbInfo getDbInfo() {
		return this.documents.raw().getDbInfo();
	}

	@Override
	public Security getSecurity() {
		return this.documents.raw().getSecurity();
	}

	@Override
	public Status updateSecurity(Security security) {
		return this.documents.raw().updateSecurity(security);
	}

	@Override
	public DesignDocInfo getDesignDocInfo(String designDocumentId) {
		return this.documents.raw().getDesignDocInfo(designDocumentId);
	}

	@Override
	public void compact() {
		this.documents.raw().compact();
	}

	@Override
	public void compactViews(String designDocumentId) {
		this.documents.raw().compactViews(designDocumentId);
	}

	@Override
	public void cleanupViews() {
		this.documents.raw().cleanupViews();
	}

	@Override
	public int getRevisionLimit() {
		return this.documents.raw().getRevisionLimit();
	}

	@Override
	public void setRevisionLimit(int limit) {
		this.documents.raw().setRevisionLimit(limit);
	}

	@Override
	public ReplicationStatus replicateFrom(String source) {
		return this.documents.raw().replicateFrom(source);
	}

	@Override
	public ReplicationStatus replicateFrom(String source, Collection<String> documentIds) {
		return this.documents.raw().replicateFrom(source, documentIds);
	}

	@Override
	public ReplicationStatus replicateTo(String target) {
		return this.documents.raw().replicateTo(target);
	}

	@Override
	public ReplicationStatus replicateTo(String target, Collection<String> documentIds) {
		return this.documents.raw().replicateTo(target, documentIds);
	}

	@Override
	public List<DocumentChange> changes(ChangesCommand command) {
		return this.documents.raw().changes(command);
	}

	@Override
	public StreamingChangesResult changesAsStream(ChangesCommand command) {
		return this.documents.raw().changesAsStream(command);
	}

	@Override
	public ChangesFeed changesFeed(ChangesCommand command) {
		return this.documents.raw().changesFeed(command);
	}

	@Override
	public void ensureFullCommit() {
		this.documents.raw().ensureFullCommit();
	}

	@Override
	public void clearBulkBuffer() {
		this.documents.raw().clearBulkBuffer();
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
