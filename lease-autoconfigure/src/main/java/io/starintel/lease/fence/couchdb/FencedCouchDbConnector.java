package io.starintel.lease.fence.couchdb;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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

import io.starintel.lease.fence.FenceDecision;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.fence.FenceStamp;
import io.starintel.lease.fence.FencedWriteRejectedException;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.context.LeaseContext;

/**
 * A fenced decorator of Ektorp's {@link CouchDbConnector}: {@code create}, {@code update}, {@code delete} and
 * {@code executeBulk} require a bound {@link io.starintel.lease.context.LeaseContext}, authorize through
 * {@link FenceGuard} (one backend-time check per call), stamp a {@code starintel_fence} object
 * ({@link FenceStamp}: lock-key digest, token, lease id, execution id, trace id, accepted backend time) into each
 * document and write conditionally on the document's {@code _rev}. Reads delegate unchanged.
 *
 * <p>Contract (fenced writes): the acceptance point is the authorization; the write is additionally conditioned on
 * the revision and on the token guard of {@link FenceDesignDocument}, so a holder paused after its authorization
 * cannot overwrite a successor's document. The {@code try*} methods return typed {@link FencedWriteResult}s; the
 * {@link CouchDbConnector} methods throw {@link FencedWriteRejectedException} for anything but acceptance. Writes
 * that cannot carry a stamp (attachments, copy, purge, update handlers, streams, the bulk buffer) throw
 * {@link UnsupportedOperationException}: use the undecorated connector deliberately for unfenced data.
 */
public final class FencedCouchDbConnector implements CouchDbConnector {

	private static final ObjectMapper JSON = new ObjectMapper();

	private final CouchDbConnector delegate;

	/** Top-level field of a fenced tombstone (a fenced document is never {@code _deleted} in CouchDB). */
	public static final String DELETED_FIELD = "starintel_deleted";

	private final FenceGuard guard;

	private final @Nullable CouchDbFenceMarks marks;

	/** Decorates {@code delegate}; every write is authorized by {@code guard}; no durable marks are kept. */
	public FencedCouchDbConnector(CouchDbConnector delegate, FenceGuard guard) {
		this(delegate, guard, null);
	}

	/**
	 * Decorates {@code delegate}; every accepted write also raises the document's durable mark in {@code marks}
	 * (what {@link FencedCouchDbReader} compares with, so a purged and re-created stale document is reported).
	 */
	public FencedCouchDbConnector(CouchDbConnector delegate, FenceGuard guard, @Nullable CouchDbFenceMarks marks) {
		this.delegate = Objects.requireNonNull(delegate, "delegate");
		this.guard = Objects.requireNonNull(guard, "guard");
		this.marks = marks;
	}

	/** The undecorated connector (unfenced: for reads, design documents and deliberate unfenced data). */
	public CouchDbConnector delegate() {
		return this.delegate;
	}

	/**
	 * Creates a new document (fenced); the document's {@code _id}/{@code _rev} are updated on acceptance. When the id
	 * holds a fenced tombstone, the document is written over the tombstone (so the design document checks its token
	 * against the deleted document's).
	 */
	public FencedWriteResult tryCreate(Object document) {
		FencedWriteResult result = write(document, () -> this.delegate.create(document));
		return overTombstone(document, result);
	}

	/** Creates a document with the given id (fenced), over a fenced tombstone of that id if there is one. */
	public FencedWriteResult tryCreate(String id, Object document) {
		FencedWriteResult result = write(document, () -> this.delegate.create(id, document));
		return overTombstone(document, result);
	}

	private FencedWriteResult overTombstone(Object document, FencedWriteResult result) {
		String id = Documents.getId(document);
		if (result.outcome() != FenceOutcome.CONFLICT || id == null || Documents.getRevision(document) != null) {
			return result;
		}
		ObjectNode existing;
		try {
			existing = this.delegate.find(ObjectNode.class, id);
		}
		catch (RuntimeException ex) {
			return result;
		}
		if (existing == null || !existing.path(DELETED_FIELD).asBoolean(false) || !existing.has("_rev")) {
			return result;
		}
		Documents.setRevision(document, existing.get("_rev").asText());
		FencedWriteResult over = tryUpdate(document);
		if (!over.isAccepted()) {
			clearRevision(document);
		}
		return over;
	}

	/** Updates a document conditionally on its {@code _rev} (fenced). */
	public FencedWriteResult tryUpdate(Object document) {
		return write(document, () -> this.delegate.update(document));
	}

	/**
	 * Deletes a document conditionally on its {@code _rev} (fenced): writes a tombstone document
	 * ({@code starintel_deleted: true}, not {@code _deleted}) that carries the fence, so the design document checks
	 * the deleting token against the stored one and a later re-create against the tombstone's token.
	 */
	public FencedWriteResult tryDelete(String id, String revision) {
		Map<String, Object> tombstone = tombstone(id, revision);
		return write(tombstone, () -> this.delegate.update(tombstone));
	}

	/** Deletes the given document (its id and {@code _rev} are read from the document, fenced). */
	public FencedWriteResult tryDelete(Object document) {
		return tryDelete(Documents.getId(document), Documents.getRevision(document));
	}

	/**
	 * Writes many documents under one authorization; per-document errors ({@code forbidden}, {@code conflict}) become
	 * typed results matched by id (servers may reorder bulk results). When the authorization is refused, nothing is
	 * sent and every document gets the refusal.
	 */
	public List<FencedDocumentResult> tryExecuteBulk(Collection<?> documents) {
		FenceDecision decision = this.guard.authorizeCurrent();
		FencedWriteResult authorized = decision.toWriteResult();
		List<FencedDocumentResult> results = new ArrayList<>(documents.size());
		if (!decision.isAuthorized()) {
			for (Object document : documents) {
				results.add(new FencedDocumentResult(String.valueOf(Documents.getId(document)), null, authorized));
			}
			return results;
		}
		for (Object document : documents) {
			stamp(document, decision.requireStamp());
		}
		List<DocumentOperationResult> errors;
		try {
			errors = this.delegate.executeBulk(documents);
		}
		catch (RuntimeException ex) {
			FencedWriteResult failed = CouchWriteErrors.map(authorized, ex);
			for (Object document : documents) {
				results.add(new FencedDocumentResult(String.valueOf(Documents.getId(document)), null, failed));
			}
			return results;
		}
		Map<String, DocumentOperationResult> errorsById = new HashMap<>();
		for (DocumentOperationResult error : errors) {
			if (error.isErroneous()) {
				errorsById.put(error.getId(), error);
			}
		}
		for (Object document : documents) {
			String id = Documents.getId(document);
			DocumentOperationResult error = errorsById.get(id);
			if (error == null) {
				raiseMark(decision, document);
				results.add(new FencedDocumentResult(id, Documents.getRevision(document), authorized));
			}
			else {
				results.add(new FencedDocumentResult(id, null,
						CouchWriteErrors.mapBulk(authorized, error.getError(), error.getReason())));
			}
		}
		return results;
	}

	private FencedWriteResult write(Object document, Runnable write) {
		FenceDecision decision = this.guard.authorizeCurrent();
		FencedWriteResult authorized = decision.toWriteResult();
		if (!decision.isAuthorized()) {
			return authorized;
		}
		stamp(document, decision.requireStamp());
		try {
			write.run();
			raiseMark(decision, document);
			return authorized;
		}
		catch (RuntimeException ex) {
			return CouchWriteErrors.map(authorized, ex);
		}
	}

	private void raiseMark(FenceDecision decision, Object document) {
		LeaseContext context = LeaseContext.currentOrNull();
		if (this.marks == null || context == null) {
			return;
		}
		String id = Documents.getId(document);
		if (id == null) {
			return;
		}
		FenceStamp stamp = decision.requireStamp();
		this.marks.raise(context.identity().scope(), this.delegate.getDatabaseName(), id, stamp.lockKeyDigest(),
				stamp.fencingToken());
	}

	@SuppressWarnings("unchecked")
	static void stamp(Object document, FenceStamp stamp) {
		Map<String, Object> fence = stamp.toMap();
		if (document instanceof FenceStamped stamped) {
			stamped.setStarintelFence(fence);
		}
		else if (document instanceof ObjectNode node) {
			node.set(FenceStamp.FIELD, JSON.valueToTree(fence));
		}
		else if (document instanceof Map<?, ?> map) {
			((Map<String, Object>) map).put(FenceStamp.FIELD, fence);
		}
		else {
			throw new IllegalArgumentException("A fenced document must be a Map, an ObjectNode or implement "
					+ FenceStamped.class.getSimpleName() + ": " + document.getClass().getName());
		}
	}

	private static void clearRevision(Object document) {
		if (document instanceof Map<?, ?> map) {
			map.remove("_rev");
		}
		else if (document instanceof ObjectNode node) {
			node.remove("_rev");
		}
		else {
			Documents.setRevision(document, null);
		}
	}

	private static Map<String, Object> tombstone(String id, String revision) {
		Map<String, Object> tombstone = new LinkedHashMap<>();
		tombstone.put("_id", id);
		tombstone.put("_rev", revision);
		tombstone.put(DELETED_FIELD, Boolean.TRUE);
		return tombstone;
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

	@Override
	public void create(String id, Object node) {
		requireAccepted(tryCreate(id, node));
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
		Map<String, Object> tombstone = tombstone(id, revision);
		requireAccepted(write(tombstone, () -> this.delegate.update(tombstone)));
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

	@Override
	public String copy(String a0, String a1) {
		throw notFenced("copy");
	}

	@Override
	public String copy(String a0, String a1, String a2) {
		throw notFenced("copy");
	}

	@Override
	public PurgeResult purge(Map<String, List<String>> a0) {
		throw notFenced("purge");
	}

	@Override
	public <T> T get(Class<T> a0, String a1) {
		return this.delegate.get(a0, a1);
	}

	@Override
	public <T> T get(Class<T> a0, String a1, Options a2) {
		return this.delegate.get(a0, a1, a2);
	}

	@Override
	public <T> T find(Class<T> a0, String a1) {
		return this.delegate.find(a0, a1);
	}

	@Override
	public <T> T find(Class<T> a0, String a1, Options a2) {
		return this.delegate.find(a0, a1, a2);
	}

	@Override
	public <T> T get(Class<T> a0, String a1, String a2) {
		return this.delegate.get(a0, a1, a2);
	}

	@Override
	public <T> T getWithConflicts(Class<T> a0, String a1) {
		return this.delegate.getWithConflicts(a0, a1);
	}

	@Override
	public boolean contains(String a0) {
		return this.delegate.contains(a0);
	}

	@Override
	public InputStream getAsStream(String a0) {
		return this.delegate.getAsStream(a0);
	}

	@Override
	public InputStream getAsStream(String a0, String a1) {
		return this.delegate.getAsStream(a0, a1);
	}

	@Override
	public InputStream getAsStream(String a0, Options a1) {
		return this.delegate.getAsStream(a0, a1);
	}

	@Override
	public List<Revision> getRevisions(String a0) {
		return this.delegate.getRevisions(a0);
	}

	@Override
	public String getCurrentRevision(String a0) {
		return this.delegate.getCurrentRevision(a0);
	}

	@Override
	public AttachmentInputStream getAttachment(String a0, String a1) {
		return this.delegate.getAttachment(a0, a1);
	}

	@Override
	public AttachmentInputStream getAttachment(String a0, String a1, String a2) {
		return this.delegate.getAttachment(a0, a1, a2);
	}

	@Override
	public String createAttachment(String a0, AttachmentInputStream a1) {
		throw notFenced("createAttachment");
	}

	@Override
	public String createAttachment(String a0, String a1, AttachmentInputStream a2) {
		throw notFenced("createAttachment");
	}

	@Override
	public String deleteAttachment(String a0, String a1, String a2) {
		throw notFenced("deleteAttachment");
	}

	@Override
	public List<String> getAllDocIds() {
		return this.delegate.getAllDocIds();
	}

	@Override
	public <T> List<T> queryView(ViewQuery a0, Class<T> a1) {
		return this.delegate.queryView(a0, a1);
	}

	@Override
	public <T> Page<T> queryForPage(ViewQuery a0, PageRequest a1, Class<T> a2) {
		return this.delegate.queryForPage(a0, a1, a2);
	}

	@Override
	public ViewResult queryView(ViewQuery a0) {
		return this.delegate.queryView(a0);
	}

	@Override
	public StreamingViewResult queryForStreamingView(ViewQuery a0) {
		return this.delegate.queryForStreamingView(a0);
	}

	@Override
	public InputStream queryForStream(ViewQuery a0) {
		return this.delegate.queryForStream(a0);
	}

	@Override
	public void createDatabaseIfNotExists() {
		this.delegate.createDatabaseIfNotExists();
	}

	@Override
	public String getDatabaseName() {
		return this.delegate.getDatabaseName();
	}

	@Override
	public String path() {
		return this.delegate.path();
	}

	@Override
	public HttpClient getConnection() {
		return this.delegate.getConnection();
	}

	@Override
	public DbInfo getDbInfo() {
		return this.delegate.getDbInfo();
	}

	@Override
	public Security getSecurity() {
		return this.delegate.getSecurity();
	}

	@Override
	public Status updateSecurity(Security a0) {
		return this.delegate.updateSecurity(a0);
	}

	@Override
	public DesignDocInfo getDesignDocInfo(String a0) {
		return this.delegate.getDesignDocInfo(a0);
	}

	@Override
	public void compact() {
		this.delegate.compact();
	}

	@Override
	public void compactViews(String a0) {
		this.delegate.compactViews(a0);
	}

	@Override
	public void cleanupViews() {
		this.delegate.cleanupViews();
	}

	@Override
	public int getRevisionLimit() {
		return this.delegate.getRevisionLimit();
	}

	@Override
	public void setRevisionLimit(int a0) {
		this.delegate.setRevisionLimit(a0);
	}

	@Override
	public ReplicationStatus replicateFrom(String a0) {
		return this.delegate.replicateFrom(a0);
	}

	@Override
	public ReplicationStatus replicateFrom(String a0, Collection<String> a1) {
		return this.delegate.replicateFrom(a0, a1);
	}

	@Override
	public ReplicationStatus replicateTo(String a0) {
		return this.delegate.replicateTo(a0);
	}

	@Override
	public ReplicationStatus replicateTo(String a0, Collection<String> a1) {
		return this.delegate.replicateTo(a0, a1);
	}

	@Override
	public List<DocumentOperationResult> executeBulk(InputStream a0) {
		throw notFenced("executeBulk");
	}

	@Override
	public List<DocumentOperationResult> executeAllOrNothing(InputStream a0) {
		throw notFenced("executeAllOrNothing");
	}

	@Override
	public List<DocumentChange> changes(ChangesCommand a0) {
		return this.delegate.changes(a0);
	}

	@Override
	public StreamingChangesResult changesAsStream(ChangesCommand a0) {
		return this.delegate.changesAsStream(a0);
	}

	@Override
	public ChangesFeed changesFeed(ChangesCommand a0) {
		return this.delegate.changesFeed(a0);
	}

	@Override
	public String callUpdateHandler(String a0, String a1, String a2) {
		throw notFenced("callUpdateHandler");
	}

	@Override
	public String callUpdateHandler(String a0, String a1, String a2, Map<String, String> a3) {
		throw notFenced("callUpdateHandler");
	}

	@Override
	public <T> T callUpdateHandler(UpdateHandlerRequest a0, Class<T> a1) {
		throw notFenced("callUpdateHandler");
	}

	@Override
	public String callUpdateHandler(UpdateHandlerRequest a0) {
		throw notFenced("callUpdateHandler");
	}

	@Override
	public void ensureFullCommit() {
		this.delegate.ensureFullCommit();
	}

	@Override
	public void updateMultipart(String a0, InputStream a1, String a2, long a3, Options a4) {
		throw notFenced("updateMultipart");
	}

	@Override
	public void update(String a0, InputStream a1, long a2, Options a3) {
		throw notFenced("update");
	}

	@Override
	public void addToBulkBuffer(Object a0) {
		throw notFenced("addToBulkBuffer");
	}

	@Override
	public List<DocumentOperationResult> flushBulkBuffer() {
		throw notFenced("flushBulkBuffer");
	}

	@Override
	public void clearBulkBuffer() {
		this.delegate.clearBulkBuffer();
	}
}
