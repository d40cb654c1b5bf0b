package io.starintel.lease.fence.couchdb;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.ektorp.CouchDbConnector;
import org.ektorp.DocumentOperationResult;
import org.ektorp.util.Documents;
import org.jspecify.annotations.Nullable;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.internal.AuditEventBuilder;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.fence.FenceDecision;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FenceStamp;
import io.starintel.lease.fence.FencedWriteResult;

/**
 * Fenced CouchDB documents: {@code create}, {@code update}, {@code delete} and bulk writes that require a bound
 * {@link LeaseContext}, authorize through {@link FenceGuard} (one backend-time check per call), stamp a
 * {@code starintel_fence} object ({@link FenceStamp}: lock-key digest, token, lease id, execution id, trace id,
 * accepted backend time) into each document and write conditionally on the document's {@code _rev}. Every
 * operation answers a typed {@link FencedWriteResult}. {@link FencedCouchDbConnector} offers the same writes as
 * Ektorp's {@link CouchDbConnector}.
 *
 * <p>A document is checked before anything is authorized ({@link #invalid}): one that cannot carry the stamp (not a
 * {@code Map}, {@code ObjectNode} or {@link FenceStamped}; an immutable {@code Map}) or lacks the id the operation
 * needs is answered {@link FenceOutcome#INVALID_REQUEST}, with no authorization (no audit event, no high-water mark
 * raised) and nothing sent.
 *
 * <p>Contract (fenced writes): the acceptance point is the authorization; the write is additionally conditioned on
 * the revision and on the token guard of the design document {@code _design/starintel_fence}, so a holder paused after its authorization
 * cannot overwrite a successor's document. Deletions are tombstones ({@value #DELETED_FIELD}{@code : true}, never
 * {@code _deleted}) that carry the fence.
 */
public final class FencedDocuments {

	/** Top-level field of a fenced tombstone (a fenced document is never {@code _deleted} in CouchDB). */
	public static final String DELETED_FIELD = "starintel_deleted";

	private static final ObjectMapper JSON = new ObjectMapper();

	private final CouchDbConnector raw;

	private final FenceGuard guard;

	private final @Nullable DocumentMarkStore marks;

	private volatile @Nullable Consumer<AuditEvent> audit;

	/**
	 * Fenced writes through {@code raw}, each authorized by {@code guard}; with {@code marks}, every accepted write
	 * also raises the document's durable mark (what {@link FencedCouchDbReader} compares with).
	 */
	public FencedDocuments(CouchDbConnector raw, FenceGuard guard, @Nullable DocumentMarkStore marks) {
		this.raw = Objects.requireNonNull(raw, "raw");
		this.guard = Objects.requireNonNull(guard, "guard");
		this.marks = marks;
	}

	/**
	 * Where the audit event of each server-side refusal goes (the design document's 403: a write authorized by the
	 * lease store but refused by CouchDB's token guard), e.g. the audit pipeline's non-blocking {@code submit};
	 * {@code null} for none. The event is {@code target_lease_commit_rejected} / {@code lease_lost} with the reason
	 * {@code couchdb:<reason>} (the enforcement point).
	 */
	public void setAuditSink(@Nullable Consumer<AuditEvent> audit) {
		this.audit = audit;
	}

	/** The undecorated connector (unfenced: for reads, design documents and deliberate unfenced data). */
	public CouchDbConnector raw() {
		return this.raw;
	}

	/**
	 * Creates a new document (fenced); the document's {@code _id}/{@code _rev} are updated on acceptance. When the id
	 * holds a fenced tombstone, the document is written over the tombstone (so the design document checks its token
	 * against the deleted document's).
	 */
	public FencedWriteResult tryCreate(Object document) {
		FencedWriteResult result = write(document, false, () -> this.raw.create(document), () -> idOrNull(document));
		return overTombstone(document, result);
	}

	/** Creates a document with the given id (fenced), over a fenced tombstone of that id if there is one. */
	public FencedWriteResult tryCreate(String id, Object document) {
		if (id == null || id.isEmpty()) {
			return invalidRequest("a document id is required: nothing sent");
		}
		FencedWriteResult result = write(document, false, () -> this.raw.create(id, document), () -> id);
		return overTombstone(document, result);
	}

	private FencedWriteResult overTombstone(Object document, FencedWriteResult result) {
		if (result.outcome() != FenceOutcome.CONFLICT) {
			return result;
		}
		String id = Documents.getId(document);
		if (id == null || Documents.getRevision(document) != null) {
			return result;
		}
		ObjectNode existing;
		try {
			existing = this.raw.find(ObjectNode.class, id);
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
		return write(document, true, () -> this.raw.update(document), () -> idOrNull(document));
	}

	/**
	 * Deletes a document conditionally on its {@code _rev} (fenced): writes a tombstone document
	 * ({@code starintel_deleted: true}, not {@code _deleted}) that carries the fence, so the design document checks
	 * the deleting token against the stored one and a later re-create against the tombstone's token.
	 */
	public FencedWriteResult tryDelete(String id, String revision) {
		return writeTombstone(tombstone(id, revision));
	}

	/** Deletes the given document (its id and {@code _rev} are read from the document, fenced). */
	public FencedWriteResult tryDelete(Object document) {
		return tryDelete(Documents.getId(document), Documents.getRevision(document));
	}

	/**
	 * Writes many documents under one authorization; per-document errors ({@code forbidden}, {@code conflict}) become
	 * typed results matched by id (servers may reorder bulk results, and Ektorp reports only the failed ones, so the
	 * id is the only key). When the authorization is refused, nothing is sent and every document gets the refusal. A
	 * bulk that names one document id twice is refused up front, nothing authorized or sent, every document
	 * {@link FenceOutcome#INVALID_REQUEST}: CouchDB would store one of the two and refuse the other, and results
	 * matched by id could not tell which (both would be reported refused, or both accepted).
	 */
	public List<FencedDocumentResult> tryExecuteBulk(Collection<?> documents) {
		List<FencedDocumentResult> invalid = refuseInvalid(documents);
		if (invalid != null) {
			return invalid;
		}
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
			errors = this.raw.executeBulk(documents);
		}
		catch (RuntimeException ex) {
			FencedWriteResult failed = CouchWriteExceptionTranslator.translate(authorized, ex);
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
		// one deadline for every raise of the bulk write: a Redis that stops answering costs one timeout, not one each
		Instant markDeadline = (this.marks != null) ? this.marks.deadline() : Instant.MAX;
		for (Object document : documents) {
			String id = Documents.getId(document);
			DocumentOperationResult error = errorsById.get(id);
			if (error == null) {
				results.add(new FencedDocumentResult(id, Documents.getRevision(document),
						marked(authorized.withDocumentId(id), raiseMark(decision.requireStamp(), id, markDeadline))));
			}
			else {
				FencedWriteResult refused = CouchWriteExceptionTranslator.translateBulkError(authorized, error.getError(),
						error.getReason());
				auditServerRefusal(refused);
				results.add(new FencedDocumentResult(id, null, refused));
			}
		}
		return results;
	}

	/**
	 * Every document refused as {@link FenceOutcome#INVALID_REQUEST} when one of them cannot be written as a fenced
	 * document ({@link #invalid}) or an id occurs twice, else {@code null}.
	 */
	private static @Nullable List<FencedDocumentResult> refuseInvalid(Collection<?> documents) {
		Set<String> ids = new HashSet<>();
		String why = null;
		for (Object document : documents) {
			String invalid = invalid(document, false);
			if (invalid != null) {
				why = "a bulk write's document " + invalid;
				break;
			}
			String id = Documents.getId(document);
			// documents without an id get one from the server each: never the same
			if (id != null && !ids.add(id)) {
				why = "a bulk write names a document id twice: nothing sent";
			}
		}
		if (why == null) {
			return null;
		}
		FencedWriteResult refused = invalidRequest(why);
		List<FencedDocumentResult> results = new ArrayList<>(documents.size());
		for (Object document : documents) {
			results.add(new FencedDocumentResult(String.valueOf(idOrNull(document)), null, refused));
		}
		return results;
	}

	/**
	 * Why {@code document} cannot be written as a fenced document, or {@code null}: checked before anything is
	 * authorized, so that an invalid request is never audited as an authorized commit nor raises the identity's
	 * high-water mark. A document must be a {@code Map} (mutable: the stamp, {@code _id} and {@code _rev} are written
	 * into it), an {@code ObjectNode} or a {@link FenceStamped}, and carry an id when {@code idRequired}.
	 */
	static @Nullable String invalid(@Nullable Object document, boolean idRequired) {
		if (document == null) {
			return "is null: nothing sent";
		}
		if (document instanceof Map<?, ?> map) {
			try {
				// an unmodifiable Map (Map.of, Collections.unmodifiableMap) refuses any putAll, an empty one included
				((Map<?, ?>) map).putAll(Map.of());
			}
			catch (UnsupportedOperationException ex) {
				return "is an immutable Map (the fence stamp, _id and _rev are written into it): nothing sent";
			}
		}
		else if (!(document instanceof ObjectNode) && !(document instanceof FenceStamped)) {
			return "must be a Map, an ObjectNode or implement " + FenceStamped.class.getSimpleName() + ", not "
					+ document.getClass().getSimpleName() + ": nothing sent";
		}
		if (idRequired) {
			String id = idOrNull(document);
			if (id == null || id.isEmpty()) {
				return "has no _id (required to update or delete): nothing sent";
			}
		}
		return null;
	}

	/** The document's id, {@code null} when it has none or none can be read. */
	private static @Nullable String idOrNull(@Nullable Object document) {
		try {
			return (document != null) ? Documents.getId(document) : null;
		}
		catch (RuntimeException ex) {
			// Ektorp finds no id accessor on the type: no id
			return null;
		}
	}

	private static FencedWriteResult invalidRequest(String detail) {
		return FencedWriteResult.refused(FenceOutcome.INVALID_REQUEST, Reason.NONE, Identifiers.generate("corr"),
				detail, null);
	}

	/** Writes a tombstone of {@link #tombstone(String, String)} (fenced); its {@code _rev} is updated on acceptance. */
	FencedWriteResult writeTombstone(Map<String, Object> tombstone) {
		return write(tombstone, true, () -> this.raw.update(tombstone), () -> idOrNull(tombstone));
	}

	/**
	 * One fenced write: the document is checked first ({@link #invalid}: nothing authorized or sent for an invalid
	 * one), then authorized, stamped and written; {@code documentId} is read after the write (a created document's id
	 * may come from the server).
	 */
	private FencedWriteResult write(Object document, boolean idRequired, Runnable write,
			Supplier<@Nullable String> documentId) {
		String invalid = invalid(document, idRequired);
		if (invalid != null) {
			return invalidRequest("the document " + invalid);
		}
		FenceDecision decision = this.guard.authorizeCurrent();
		FencedWriteResult authorized = decision.toWriteResult();
		if (!decision.isAuthorized()) {
			return authorized;
		}
		try {
			stamp(document, decision.requireStamp());
		}
		catch (IllegalArgumentException ex) {
			// a Map whose put fails although putAll did not (checked above): still nothing sent
			return authorized.with(FenceOutcome.INVALID_REQUEST, Reason.NONE, "the document cannot carry the fence "
					+ "stamp: nothing sent");
		}
		try {
			write.run();
		}
		catch (RuntimeException ex) {
			FencedWriteResult refused = CouchWriteExceptionTranslator.translate(authorized, ex);
			auditServerRefusal(refused);
			return refused;
		}
		String id = documentId.get();
		Instant markDeadline = (this.marks != null) ? this.marks.deadline() : Instant.MAX;
		return marked(authorized.withDocumentId(id), raiseMark(decision.requireStamp(), id, markDeadline));
	}

	/**
	 * Raises the durable mark of an accepted write whose result was {@link FenceOutcome#ACCEPTED_MARK_PENDING}
	 * (with the same lease context bound), within the mark store's timeout: {@link FenceOutcome#ACCEPTED} once
	 * Redis confirms it, {@link FenceOutcome#ACCEPTED_MARK_REFUSED} when the mark names another lock identity (never
	 * retryable), else the pending result again. Any other result is returned as it is.
	 *
	 * <p>Contract (fenced writes): raising a mark is a fenced commit, authorized like a write. Only the bound
	 * holder's own write of this very document is raised, and only while its lease is the current one:
	 * <ul>
	 * <li>without a context the answer is {@link FenceOutcome#NO_LEASE_CONTEXT};</li>
	 * <li>{@link FenceOutcome#INVALID_REQUEST} (nothing authorized or raised) when {@code id} is not the result's
	 * {@link FencedWriteResult#documentId()}, when the result's stamp is not the bound context's lease (another lock,
	 * lease or token), or when the document as CouchDB stores it does not carry the stamp's lock identity (a mark of
	 * an identity on a document of another one, or on no document, would block that document's own writers for good:
	 * a mark never changes its identity);</li>
	 * <li>then one authorization through the {@link FenceGuard} at backend time, as for a write: a lease that is no
	 * longer the current one is {@link FenceOutcome#LEASE_LOST} and raises nothing.</li>
	 * </ul>
	 * @param id the document's id (the result's)
	 * @param pending the write's result
	 * @return the result with the mark raised, still pending, or the refusal of the retry
	 */
	public FencedWriteResult retryMark(String id, FencedWriteResult pending) {
		FenceStamp stamp = pending.stamp();
		if (!pending.isMarkPending() || stamp == null) {
			return pending;
		}
		LeaseContext context = LeaseContext.currentOrNull();
		if (context == null) {
			return this.guard.authorizeCurrent().toWriteResult();
		}
		if (id == null || !id.equals(pending.documentId())) {
			return invalidRequest("retryMark names another document than its result's: no mark raised");
		}
		if (stamp.fencingToken() != context.fencingToken() || !stamp.leaseId().equals(context.leaseId())
				|| !stamp.lockKeyDigest().equals(context.identity().keyDigest())) {
			return invalidRequest("retryMark takes a result of a write made under the bound lease context: no mark "
					+ "raised");
		}
		if (this.marks != null) {
			ObjectNode stored;
			try {
				stored = this.raw.find(ObjectNode.class, id);
			}
			catch (RuntimeException ex) {
				// CouchDB gave no answer: still pending, a later retry may tell
				return pending;
			}
			DocumentFence fence = (stored != null) ? DocumentFence.of(stored) : null;
			if (fence == null || !fence.digest().equals(stamp.lockKeyDigest())) {
				return invalidRequest("the document does not carry the result's lock identity: no mark raised");
			}
		}
		FenceDecision decision = this.guard.authorizeCurrent();
		if (!decision.isAuthorized()) {
			return decision.toWriteResult().withDocumentId(id);
		}
		Instant markDeadline = (this.marks != null) ? this.marks.deadline() : Instant.MAX;
		return marked(pending.with(FenceOutcome.ACCEPTED, Reason.NONE, null), raiseMark(stamp, id, markDeadline));
	}

	/** One audit event for a write CouchDB refused as a fence violation (after the lease store authorized it). */
	private void auditServerRefusal(FencedWriteResult result) {
		Consumer<AuditEvent> sink = this.audit;
		LeaseContext context = LeaseContext.currentOrNull();
		if (sink == null || context == null || result.outcome() != FenceOutcome.LEASE_LOST) {
			return;
		}
		try {
			Instant now = Instant.now();
			sink.accept(new AuditEventBuilder(AuditEventType.COMMIT_REJECTED, ResultCode.LEASE_LOST)
				.record(context.lease())
				.ids(null, result.correlationId())
				.reason("couchdb:" + result.reason().wireName())
				.time(now, now)
				.build());
		}
		catch (RuntimeException ex) {
			// never changes the answer; the refusal is in the result
		}
	}

	/**
	 * The accepted result, {@code fenced_write_accepted_mark_pending} when the mark was not confirmed (retryable),
	 * or {@code fenced_write_accepted_mark_refused} when the mark names another lock identity (never retryable).
	 */
	private static FencedWriteResult marked(FencedWriteResult accepted, DocumentMarkStore.Raise raise) {
		switch (raise) {
			case RAISED:
			case KEPT:
				return accepted;
			case IDENTITY_DIFFERS:
				return accepted.with(FenceOutcome.ACCEPTED_MARK_REFUSED, Reason.NONE,
						"durable mark names another lock identity: not retryable; the document reads FORGED until "
								+ "recovered");
			default:
				return accepted.with(FenceOutcome.ACCEPTED_MARK_PENDING, Reason.BACKEND_UNREACHABLE,
						"durable mark not confirmed: retry with retryMark");
		}
	}

	/**
	 * Raises the document's durable mark within the deadline ({@code RAISED} also when there is nothing to raise: no
	 * mark store, no lease context, no id).
	 */
	private DocumentMarkStore.Raise raiseMark(FenceStamp stamp, @Nullable String id, Instant deadline) {
		LeaseContext context = LeaseContext.currentOrNull();
		if (this.marks == null || context == null || id == null) {
			return DocumentMarkStore.Raise.RAISED;
		}
		return this.marks.raise(context.identity().scope(), this.raw.getDatabaseName(), id, stamp.lockKeyDigest(),
				stamp.fencingToken(), stamp.leaseId(), deadline);
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
			try {
				((Map<String, Object>) map).put(FenceStamp.FIELD, fence);
			}
			catch (UnsupportedOperationException ex) {
				throw new IllegalArgumentException("A fenced Map document must be mutable (the fence stamp, _id and "
						+ "_rev are written into it): " + document.getClass().getName(), ex);
			}
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

	static Map<String, Object> tombstone(String id, String revision) {
		Map<String, Object> tombstone = new LinkedHashMap<>();
		tombstone.put("_id", id);
		tombstone.put("_rev", revision);
		tombstone.put(DELETED_FIELD, Boolean.TRUE);
		return tombstone;
	}

}
