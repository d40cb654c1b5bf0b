package io.starintel.lease.fence.couchdb;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.ektorp.DbAccessException;
import org.ektorp.DocumentNotFoundException;
import org.ektorp.UpdateConflictException;
import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.Reason;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.fence.couchdb.internal.FenceDesignDocument;

/**
 * Translates Ektorp's write failures into typed fenced-write results, as Apache CouchDB and pouchdb-server answer
 * them (both run by the integration suites): a stale {@code _rev} is an {@link UpdateConflictException}; a
 * {@code validate_doc_update} rejection is a plain {@link DbAccessException} whose message starts with {@code 403:Forbidden} and carries the JSON body; pouchdb-server may answer a racing
 * writer with 403 instead of 409 and a delete with an unknown rev with 404). Server messages of the fence design
 * document are our own text and safe to carry as detail; anything else is reduced to its status.
 */
final class CouchWriteExceptionTranslator {

	private static final ObjectMapper JSON = new ObjectMapper();

	private CouchWriteExceptionTranslator() {
	}

	static FencedWriteResult translate(FencedWriteResult authorized, RuntimeException ex) {
		if (ex instanceof UpdateConflictException) {
			return authorized.with(FenceOutcome.CONFLICT, Reason.NONE, "revision conflict");
		}
		if (ex instanceof DocumentNotFoundException) {
			return authorized.with(FenceOutcome.CONFLICT, Reason.NONE, "revision not found");
		}
		String message = (ex.getMessage() != null) ? ex.getMessage() : "";
		if (ex instanceof DbAccessException && message.startsWith("403")) {
			return forbidden(authorized, reasonText(message));
		}
		if (ex instanceof DbAccessException && message.startsWith("409")) {
			return authorized.with(FenceOutcome.CONFLICT, Reason.NONE, "revision conflict");
		}
		// transport failure or an unexpected status: the write may or may not have happened
		return authorized.with(FenceOutcome.OUTCOME_UNKNOWN, Reason.NONE, ex.getClass().getSimpleName());
	}

	/** Maps one per-document error of a bulk write ({@code error=forbidden|conflict}). */
	static FencedWriteResult translateBulkError(FencedWriteResult authorized, String error, @Nullable String reason) {
		if ("conflict".equals(error)) {
			return authorized.with(FenceOutcome.CONFLICT, Reason.NONE, "revision conflict");
		}
		if ("forbidden".equals(error)) {
			return forbidden(authorized, reason);
		}
		return authorized.with(FenceOutcome.OUTCOME_UNKNOWN, Reason.NONE, "bulk error");
	}

	private static FencedWriteResult forbidden(FencedWriteResult authorized, @Nullable String reason) {
		boolean fenceRule = reason != null && reason.startsWith(FenceDesignDocument.MESSAGE_PREFIX);
		Reason why = (fenceRule && reason.contains("below")) ? Reason.TOKEN_BELOW_HIGH_WATER_MARK : Reason.STALE_LEASE;
		return authorized.with(FenceOutcome.LEASE_LOST, why, fenceRule ? reason : "forbidden");
	}

	private static @Nullable String reasonText(String message) {
		int start = message.indexOf('{');
		if (start < 0) {
			return null;
		}
		try {
			JsonNode body = JSON.readTree(message.substring(start));
			JsonNode reason = body.get("reason");
			return (reason != null && reason.isTextual()) ? reason.asText() : null;
		}
		catch (Exception ex) {
			return null;
		}
	}

}
