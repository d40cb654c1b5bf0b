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
		FencedWriteResult result = write(document, () -> this.raw.create(document));
		return overTombstone(document, result);
	}

	/** Creates a document with the given id (fenced), over a fenced tombstone of that id if there is one. */
	public FencedWriteResult tryCreate(String id, Object document) {
		FencedWriteResult result = write(document, () -> this.raw.create(id, document));
		return overTombstone(document, result);
	}

	private FencedWriteResult overTombstone(Object document, FencedWriteResult result) {
		String id = Documents.getId(document);
		if (result.outcome() != FenceOutcome.CONFLICT || id == null || Documents.getRevision(document) != null) {
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
		return write(document, () -> this.raw.update(document));
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
		List<FencedDocumentResult> invalid = refuseDuplicateIds(documents);
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
						marked(authorized, raiseMark(decision.requireStamp(), () -> id, markDeadline))));
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

	/** Every document refused as {@link FenceOutcome#INVALID_REQUEST} when an id occurs twice, else {@code null}. */
	private static @Nullable List<FencedDocumentResult> refuseDuplicateIds(Collection<?> documents) {
		Set<String> ids = new HashSet<>();
		boolean duplicate = false;
		for (Object document : documents) {
			String id = Documents.getId(document);
			// documents without an id get one from the server each: never the same
			duplicate |= id != null && !ids.add(id);
		}
		if (!duplicate) {
			return null;
		}
		FencedWriteResult refused = FencedWriteResult.refused(FenceOutcome.INVALID_REQUEST, Reason.NONE,
				Identifiers.generate("corr"), "a bulk write names a document id twice: nothing sent", null);
		List<FencedDocumentResult> results = new ArrayList<>(documents.size());
		for (Object document : documents) {
			results.add(new FencedDocumentResult(String.valueOf(Documents.getId(document)), null, refused));
		}
		return results;
	}

	/** Writes a tombstone of {@link #tombstone(String, String)} (fenced); its {@code _rev} is updated on acceptance. */
	FencedWriteResult writeTombstone(Map<String, Object> tombstone) {
		return write(tombstone, () -> this.raw.update(tombstone));
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
		}
		catch (RuntimeException ex) {
			FencedWriteResult refused = CouchWriteExceptionTranslator.translate(authorized, ex);
			auditServerRefusal(refused);
			return refused;
		}
		Instant markDeadline = (this.marks != null) ? this.marks.deadline() : Instant.MAX;
		return marked(authorized,
				raiseMark(decision.requireStamp(), () -> Documents.getId(document), markDeadline));
	}

	/**
	 * Raises the durable mark of an accepted write whose result was {@link FenceOutcome#ACCEPTED_MARK_PENDING}
	 * (with the same lease context bound), within the mark store's timeout: {@link FenceOutcome#ACCEPTED} once
	 * Redis confirms it, else the pending result again. Any other result is returned as it is. Only the bound
	 * context's own writes are raised: without a context the answer is {@link FenceOutcome#NO_LEASE_CONTEXT}, and a
	 * result whose stamp is not the context's lease (another lock, lease or token: not a result of this holder's
	 * write) is refused, so that no caller raises a mark to a token it never wrote with.
	 * @param id the document's id
	 * @param pending the write's result
	 * @return the result with the mark raised, or still pending
	 * @throws IllegalArgumentException when {@code pending} carries a stamp that is not the bound context's lease
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
		if (stamp.fencingToken() != context.fencingToken() || !stamp.leaseId().equals(context.leaseId())
				|| !stamp.lockKeyDigest().equals(context.identity().keyDigest())) {
			throw new IllegalArgumentException("retryMark takes a result of a write made under the bound lease context");
		}
		Instant markDeadline = (this.marks != null) ? this.marks.deadline() : Instant.MAX;
		return raiseMark(stamp, () -> id, markDeadline)
				? pending.with(FenceOutcome.ACCEPTED, Reason.NONE, null) : pending;
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

	/** The accepted result, or {@code fenced_write_accepted_mark_pending} when the mark was not raised. */
	private static FencedWriteResult marked(FencedWriteResult accepted, boolean raised) {
		return raised ? accepted : accepted.with(FenceOutcome.ACCEPTED_MARK_PENDING, Reason.BACKEND_UNREACHABLE,
				"durable mark not confirmed: retry with retryMark");
	}

	/**
	 * Raises the document's durable mark within the deadline; {@code true} when raised (or when there is nothing to
	 * raise: no mark store, no lease context, no id; the id is read only when there is a mark to raise).
	 */
	private boolean raiseMark(FenceStamp stamp, Supplier<@Nullable String> documentId, Instant deadline) {
		LeaseContext context = LeaseContext.currentOrNull();
		if (this.marks == null || context == null) {
			return true;
		}
		String id = documentId.get();
		if (id == null) {
			return true;
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
