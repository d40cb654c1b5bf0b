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

import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.fence.FenceStamp;

/**
 * Fenced reads of CouchDB documents: conflicts resolved deterministically to the highest accepted token, checked
 * against the document's durable mark ({@link DocumentMarkStore}) and its identity's issued fencing counter.
 *
 * <p>Why: CouchDB's own winner is chosen by revision depth, not by token, and {@code _purge} bypasses
 * {@code validate_doc_update}. So a read (1) loads every leaf revision ({@code conflicts=true}); (2) drops leaves
 * without a valid fence, with another lock identity than the mark's, or with a token above the highest token the
 * lease store ever issued for the identity (forged); (3) picks the highest token, ties broken by CouchDB's winner,
 * then by the greatest revision id; (4) reports {@link FencedReadStatus#BELOW_MARK} instead of the document when its
 * token is below the mark (a purged-and-re-created stale document), and every other leaf as a conflict.
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
		if (leaves.stream().allMatch((leaf) -> fence(leaf) == null)) {
			return new FencedRead(FencedReadStatus.UNFENCED, winner, rev(winner), 0, 0, revs(leaves, winner), null);
		}
		DocumentMarkStore.Mark mark;
		try {
			mark = this.marks.read(scope, this.connector.getDatabaseName(), id, digest(winner));
		}
		catch (RuntimeException ex) {
			return FencedRead.of(FencedReadStatus.BACKEND_UNAVAILABLE, "redis: " + ex.getClass().getSimpleName());
		}
		String identity = (mark.digest() != null) ? mark.digest() : digest(winner);
		String winnerRev = rev(winner);
		ObjectNode best = leaves.stream()
			.filter((leaf) -> accepted(leaf, identity, mark.issuedCounter()))
			.max(Comparator.comparingLong(FencedCouchDbReader::token)
				.thenComparing((leaf) -> Objects.equals(rev(leaf), winnerRev))
				.thenComparing(FencedCouchDbReader::revisionOrder))
			.orElse(null);
		if (best == null) {
			return new FencedRead(FencedReadStatus.FORGED, null, null, 0, mark.token(), revs(leaves, null),
					"no revision carries a token the lease store issued for the document's identity");
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

	private static boolean accepted(ObjectNode leaf, @Nullable String identity, long issuedCounter) {
		JsonNode fence = fence(leaf);
		if (fence == null || !fence.path("fencing_token").canConvertToLong()) {
			return false;
		}
		long token = fence.path("fencing_token").asLong();
		if (token < 1 || token > LeaseRecord.MAX_FENCING_TOKEN) {
			return false;
		}
		if (identity == null || !identity.equals(fence.path("lock_key_digest").asText(null))) {
			return false;
		}
		// a token the lease store never issued for this identity can only be forged
		return issuedCounter < 0 || token <= issuedCounter;
	}

	private static @Nullable JsonNode fence(ObjectNode doc) {
		JsonNode fence = doc.get(FenceStamp.FIELD);
		return (fence != null && fence.isObject()) ? fence : null;
	}

	private static @Nullable String digest(ObjectNode doc) {
		JsonNode fence = fence(doc);
		return (fence != null) ? fence.path("lock_key_digest").asText(null) : null;
	}

	private static long token(ObjectNode doc) {
		JsonNode fence = fence(doc);
		return (fence != null) ? fence.path("fencing_token").asLong(0) : 0;
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
