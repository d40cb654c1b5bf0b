package io.starintel.lease.fence.couchdb;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.jspecify.annotations.Nullable;
import org.ektorp.CouchDbConnector;
import org.ektorp.DocumentNotFoundException;
import org.ektorp.Options;

import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.fence.FenceStamp;

/**
 * Fenced reads of CouchDB documents: conflicts resolved deterministically to the highest issued token, checked
 * against the document's durable mark ({@link DocumentMarkStore}) and what the lease store issued for its identity.
 *
 * <p>Why: CouchDB's own winner is chosen by revision depth, not by token, {@code _purge} bypasses
 * {@code validate_doc_update}, and the design document accepts any higher token from a client with database
 * credentials. So a read (1) loads every leaf revision ({@code conflicts=true}); (2) drops every leaf whose fence the
 * lease store did not issue for the document's identity ({@link DocumentFence#issued}: malformed, another identity
 * than the mark's, an identity never issued a lease, above the issued counter, the mark's token with another lease id
 * than the mark kept, or above the mark with a (lease id, token) pair the store never issued: forged); (3) picks the
 * highest token, ties broken by CouchDB's winner, then by the greatest revision id; (4) reports
 * {@link FencedReadStatus#BELOW_MARK} instead of the document when its token is below the mark (a
 * purged-and-re-created stale document), {@link FencedReadStatus#FORGED} when no leaf is left, and every other leaf
 * as a conflict.
 */
public final class FencedCouchDbReader {

	private final CouchDbConnector connector;

	private final DocumentMarkStore marks;

	/** A reader on the undecorated connector (a {@link FencedCouchDbConnector} is unwrapped). */
	public FencedCouchDbReader(CouchDbConnector connector, DocumentMarkStore marks) {
		this.connector = (connector instanceof FencedCouchDbConnector fenced) ? fenced.delegate()
				: Objects.requireNonNull(connector, "connector");
		this.marks = Objects.requireNonNull(marks, "marks");
	}

	/** Reads document {@code id} of the given program (the program whose leases write it). */
	public FencedRead read(ProgramScope scope, String id) {
		List<ObjectNode> leaves;
		ObjectNode winner;
		try {
			winner = this.connector.find(ObjectNode.class, id, new Options().includeConflicts());
			if (winner == null) {
				return FencedRead.of(FencedReadStatus.NOT_FOUND, null);
			}
			leaves = new ArrayList<>();
			leaves.add(winner);
			JsonNode conflicts = winner.get("_conflicts");
			if (conflicts != null && conflicts.isArray()) {
				for (JsonNode rev : conflicts) {
					ObjectNode leaf = this.connector.find(ObjectNode.class, id, new Options().revision(rev.asText()));
					if (leaf != null) {
						leaves.add(leaf);
					}
				}
			}
		}
		catch (DocumentNotFoundException ex) {
			return FencedRead.of(FencedReadStatus.NOT_FOUND, null);
		}
		catch (RuntimeException ex) {
			return FencedRead.of(FencedReadStatus.BACKEND_UNAVAILABLE, "couchdb: " + ex.getClass().getSimpleName());
		}
		winner.remove("_conflicts");
		if (leaves.stream().noneMatch(DocumentFence::present)) {
			return new FencedRead(FencedReadStatus.UNFENCED, winner, rev(winner), 0, 0, revs(leaves, winner), null);
		}
		List<DocumentFence> fences = new ArrayList<>(leaves.size());
		List<DocumentMarkStore.Claim> claims = new ArrayList<>();
		String fallback = null;
		for (ObjectNode leaf : leaves) {
			DocumentFence fence = DocumentFence.of(leaf);
			fences.add(fence);
			if (fence != null) {
				claims.add(fence.claim());
				// the winner's identity, else the first well-formed leaf's (a malformed digest is never sent)
				fallback = (fallback == null || leaf == winner) ? fence.digest() : fallback;
			}
		}
		DocumentMarkStore.Checked checked;
		try {
			checked = this.marks.check(scope, this.connector.getDatabaseName(), id, fallback, claims);
		}
		catch (RuntimeException ex) {
			return FencedRead.of(FencedReadStatus.BACKEND_UNAVAILABLE, "redis: " + ex.getClass().getSimpleName());
		}
		DocumentMarkStore.Mark mark = checked.mark();
		String identity = (mark.digest() != null) ? mark.digest() : fallback;
		String winnerRev = rev(winner);
		List<ObjectNode> accepted = new ArrayList<>();
		int claim = 0;
		for (int i = 0; i < leaves.size(); i++) {
			DocumentFence fence = fences.get(i);
			if (fence == null) {
				continue;
			}
			boolean pairIssued = checked.issued().get(claim++);
			if (fence.issued(identity, checked, () -> pairIssued)) {
				accepted.add(leaves.get(i));
			}
		}
		ObjectNode best = accepted.stream()
			.max(Comparator.comparingLong(FencedCouchDbReader::token)
				.thenComparing((leaf) -> Objects.equals(rev(leaf), winnerRev))
				.thenComparing(FencedCouchDbReader::revisionOrder))
			.orElse(null);
		if (best == null) {
			return new FencedRead(FencedReadStatus.FORGED, null, null, 0, mark.token(), revs(leaves, null),
					"no revision carries a fence the lease store issued for the document's identity");
		}
		List<String> others = revs(leaves, best);
		long token = token(best);
		if (token < mark.token()) {
			return new FencedRead(FencedReadStatus.BELOW_MARK, null, null, token, mark.token(), others,
					"the document's token is below its durable mark (a stale re-creation)");
		}
		FencedReadStatus status = best.path("starintel_deleted").asBoolean(false) ? FencedReadStatus.DELETED
				: FencedReadStatus.CURRENT;
		return new FencedRead(status, best, rev(best), token, mark.token(), others, null);
	}

	/** The token of a leaf whose fence is well formed ({@link DocumentFence#of}). */
	private static long token(ObjectNode doc) {
		return doc.path(FenceStamp.FIELD).path("fencing_token").asLong(0);
	}

	private static @Nullable String rev(ObjectNode doc) {
		JsonNode rev = doc.get("_rev");
		return (rev != null) ? rev.asText() : null;
	}

	/** Revision order: position, then id (the same total order CouchDB uses for its winner). */
	private static String revisionOrder(ObjectNode doc) {
		String rev = String.valueOf(rev(doc));
		int dash = rev.indexOf('-');
		String position = (dash > 0) ? rev.substring(0, dash) : "0";
		return "0".repeat(Math.max(0, 20 - position.length())) + position + rev.substring(Math.max(dash, 0));
	}

	private static List<String> revs(List<ObjectNode> leaves, @Nullable ObjectNode except) {
		List<String> out = new ArrayList<>();
		for (ObjectNode leaf : leaves) {
			if (leaf != except && rev(leaf) != null) {
				out.add(rev(leaf));
			}
		}
		return out;
	}

}
