package io.starintel.lease.fence.couchdb;

import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.ektorp.CouchDbConnector;
import org.ektorp.DbAccessException;
import org.ektorp.DocumentNotFoundException;
import org.ektorp.Options;
import org.ektorp.Revision;
import org.ektorp.UpdateConflictException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.fence.FenceStamp;

/**
 * The operator's repair of a fenced CouchDB document whose fence was forged: a client with database credentials
 * wrote a token above anything the lease store issued (or another identity's fence on a new document), and the
 * design document now refuses the legitimate holder's lower token on that document for good.
 *
 * <p>A recovery reads the document's current revision, its durable mark and its identity's issued fencing counter;
 * when the fence is forged by the fenced reader's rule ({@link DocumentFence#issued}: one home; also a token below the
 * counter whose (lease id, token) pair the lease store never issued, e.g. a forged token that a later lease's token
 * has overtaken) it writes one new revision with the counter as token, the mark's identity, and the content of the
 * newest revision still on disk whose fence was issued by the same rule (a fenced tombstone when there is none). The counter is the tightest
 * safe token: the current holder's token equals it and every later lease's is higher, so both write again, while
 * every earlier (stale) holder stays below it. The fence carries {@code recovery} ({@code recovery_id}, the replaced
 * token, the restored revision); the design document (version 3) accepts such a write only from a user with the role
 * {@code starintel_fence_recovery}, so the connector given here must authenticate as such a user, which the
 * application's own connection should not be. Nothing is written for a fence that is not forged.
 *
 * <p>The recovery never throws for a backend failure: every outcome is a {@link FenceRecovery}. Log lines name the
 * document only by its mark field (a digest), never its id or lock key.
 */
public final class FencedDocumentRecovery {

	/** The role CouchDB requires of the user that writes a recovery. */
	public static final String RECOVERY_ROLE = "starintel_fence_recovery";

	private static final Logger logger = LoggerFactory.getLogger(FencedDocumentRecovery.class);

	private final CouchDbConnector connector;

	private final DocumentMarkStore marks;

	private final Clock clock;

	/**
	 * A recovery through {@code connector} (a user with {@value #RECOVERY_ROLE}; a {@link FencedCouchDbConnector} is
	 * unwrapped) with the marks and counters of {@code marks}.
	 */
	public FencedDocumentRecovery(CouchDbConnector connector, DocumentMarkStore marks, Clock clock) {
		this.connector = (connector instanceof FencedCouchDbConnector fenced) ? fenced.delegate()
				: Objects.requireNonNull(connector, "connector");
		this.marks = Objects.requireNonNull(marks, "marks");
		this.clock = Objects.requireNonNull(clock, "clock");
	}

	/** The database recoveries write to. */
	public String databaseName() {
		return this.connector.getDatabaseName();
	}

	/**
	 * Recovers document {@code id} of the program {@code scope} (the program whose leases write it) if its fence is
	 * forged; {@code recoveryId} (the admin request's correlation id) is recorded in the new fence.
	 */
	public FenceRecovery recover(ProgramScope scope, String id, String recoveryId) {
		Objects.requireNonNull(scope, "scope");
		Objects.requireNonNull(recoveryId, "recoveryId");
		if (id == null || id.isEmpty() || id.startsWith("_")) {
			throw new IllegalArgumentException("id: a document id, not empty, not a design or system document");
		}
		Map<String, Object> current;
		try {
			current = readMap(id, null);
		}
		catch (RuntimeException ex) {
			return FenceRecovery.of(FenceRecoveryStatus.BACKEND_UNAVAILABLE, 0);
		}
		if (current == null) {
			return FenceRecovery.of(FenceRecoveryStatus.NOT_FOUND, 0);
		}
		if (!(current.get(FenceStamp.FIELD) instanceof Map<?, ?>)) {
			return FenceRecovery.of(FenceRecoveryStatus.NOT_FENCED, 0);
		}
		DocumentFence fence = DocumentFence.of(current);
		String found = (fence != null) ? fence.digest() : null;
		long replaced = (fence != null) ? fence.token() : 0;
		List<DocumentMarkStore.Claim> claims = (fence != null) ? List.of(fence.claim()) : List.of();
		DocumentMarkStore.Checked checked;
		try {
			checked = this.marks.check(scope, databaseName(), id, found, claims);
		}
		catch (RuntimeException ex) {
			return FenceRecovery.of(FenceRecoveryStatus.BACKEND_UNAVAILABLE, replaced);
		}
		DocumentMarkStore.Mark mark = checked.mark();
		String identity = (mark.digest() != null) ? mark.digest() : found;
		long issued = mark.issuedCounter();
		if (identity == null || issued < 1) {
			return FenceRecovery.of(FenceRecoveryStatus.UNKNOWN_IDENTITY, replaced);
		}
		// the fenced reader's rule (DocumentFence#issued): a fence it would accept is not forged
		if (fence != null && fence.issued(identity, checked, () -> checked.issued().get(0))) {
			return FenceRecovery.of(FenceRecoveryStatus.NOT_FORGED, replaced);
		}
		String restoredFrom;
		Map<String, Object> next;
		try {
			restoredFrom = newestIssuedRevision(scope, id, (String) current.get("_rev"), identity, checked);
			next = (restoredFrom != null) ? content(readMap(id, restoredFrom)) : tombstone();
		}
		catch (RuntimeException ex) {
			return FenceRecovery.of(FenceRecoveryStatus.BACKEND_UNAVAILABLE, replaced);
		}
		next.put("_id", id);
		next.put("_rev", current.get("_rev"));
		Map<String, Object> stamp = new LinkedHashMap<>();
		stamp.put("lock_key_digest", identity);
		stamp.put("fencing_token", issued);
		stamp.put("lease_id", "recovery");
		stamp.put("accepted_at", DateTimeFormatter.ISO_INSTANT.format(this.clock.instant().truncatedTo(ChronoUnit.MILLIS)));
		Map<String, Object> recovery = new LinkedHashMap<>();
		recovery.put("recovery_id", recoveryId);
		recovery.put("replaced_token", replaced);
		recovery.put("restored_revision", restoredFrom);
		stamp.put("recovery", recovery);
		next.put(FenceStamp.FIELD, stamp);
		String field = DocumentMarkStore.field(databaseName(), id);
		try {
			this.connector.update(next);
		}
		catch (UpdateConflictException | DocumentNotFoundException ex) {
			return FenceRecovery.of(FenceRecoveryStatus.CONFLICT, replaced);
		}
		catch (DbAccessException ex) {
			String message = String.valueOf(ex.getMessage());
			if (message.startsWith("403")) {
				logger.warn("Fence recovery of document mark_field={} refused by CouchDB: the recovery connection "
						+ "needs the role {} and design document version 3", field, RECOVERY_ROLE);
				return FenceRecovery.of(FenceRecoveryStatus.REFUSED_BY_SERVER, replaced);
			}
			if (message.startsWith("409")) {
				return FenceRecovery.of(FenceRecoveryStatus.CONFLICT, replaced);
			}
			return FenceRecovery.of(FenceRecoveryStatus.OUTCOME_UNKNOWN, replaced);
		}
		catch (RuntimeException ex) {
			return FenceRecovery.of(FenceRecoveryStatus.OUTCOME_UNKNOWN, replaced);
		}
		logger.warn("Fence recovery of document mark_field={}: forged token {} replaced by the issued counter {}, "
				+ "content {}", field, replaced, issued, (restoredFrom != null) ? "restored" : "tombstoned");
		return new FenceRecovery(FenceRecoveryStatus.RECOVERED, replaced, issued, restoredFrom,
				(String) next.get("_rev"));
	}

	/**
	 * The newest revision still on disk whose fence the lease store issued for the identity (the reader's rule; a
	 * token above the mark is asked about, one pair at a time: only a write whose mark is pending has one).
	 */
	private @Nullable String newestIssuedRevision(ProgramScope scope, String id, String currentRev, String identity,
			DocumentMarkStore.Checked checked) {
		List<Revision> revisions = this.connector.getRevisions(id);
		for (Revision revision : revisions) {
			// CouchDB reports a revision whose body is still stored as "available" (Ektorp's isOnDisk() expects "disk")
			if (!"available".equals(revision.getStatus()) || revision.getRev().equals(currentRev)) {
				continue;
			}
			Map<String, Object> old = readMap(id, revision.getRev());
			DocumentFence fence = (old != null) ? DocumentFence.of(old) : null;
			if (fence != null && fence.issued(identity, checked, () -> this.marks
				.check(scope, databaseName(), id, identity, List.of(fence.claim()))
				.issued()
				.get(0))) {
				return revision.getRev();
			}
		}
		return null;
	}

	@SuppressWarnings("unchecked")
	private @Nullable Map<String, Object> readMap(String id, @Nullable String revision) {
		try {
			return (revision != null) ? this.connector.find(Map.class, id, new Options().revision(revision))
					: this.connector.find(Map.class, id);
		}
		catch (DocumentNotFoundException ex) {
			return null;
		}
	}

	private static Map<String, Object> content(@Nullable Map<String, Object> revision) {
		Map<String, Object> body = new LinkedHashMap<>();
		if (revision != null) {
			revision.forEach((key, value) -> {
				if (!key.startsWith("_")) {
					body.put(key, value);
				}
			});
		}
		return body;
	}

	private static Map<String, Object> tombstone() {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put(FencedDocuments.DELETED_FIELD, Boolean.TRUE);
		return body;
	}

}
