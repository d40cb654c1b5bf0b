package io.starintel.lease.fence.couchdb;

import java.util.List;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.jspecify.annotations.Nullable;

/**
 * Typed result of {@link FencedCouchDbReader#read}.
 *
 * @param status what was found
 * @param document the chosen revision (present for {@link FencedReadStatus#CURRENT}, {@code DELETED} and
 * {@code UNFENCED}; never for {@code BELOW_MARK} or {@code FORGED})
 * @param revision the chosen revision id, or {@code null}
 * @param fencingToken the chosen revision's token ({@code 0} when none)
 * @param mark the document's durable mark ({@code 0} when none is stored)
 * @param conflicts the other leaf revisions of the document (CouchDB conflicts), reported, never merged
 * @param detail a safe explanation (our own text), or {@code null}
 */
public record FencedRead(FencedReadStatus status, @Nullable ObjectNode document, @Nullable String revision,
		long fencingToken, long mark, List<String> conflicts, @Nullable String detail) {

	/** A copy with defensive list. */
	public FencedRead {
		conflicts = List.copyOf(conflicts);
	}

	/** Whether the document is returned as current. */
	public boolean isCurrent() {
		return this.status == FencedReadStatus.CURRENT;
	}

	/** Whether CouchDB holds conflicting leaf revisions of the document. */
	public boolean isConflicted() {
		return !this.conflicts.isEmpty();
	}

	static FencedRead of(FencedReadStatus status, @Nullable String detail) {
		return new FencedRead(status, null, null, 0, 0, List.of(), detail);
	}

}
