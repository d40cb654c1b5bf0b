package io.starintel.lease.fence.couchdb.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.ektorp.CouchDbConnector;
import org.ektorp.UpdateConflictException;
import org.jspecify.annotations.Nullable;

/**
 * The versioned design document {@code _design/starintel_fence} whose {@code validate_doc_update} makes the
 * <em>server</em> enforce the fence, also for writes that bypass the fenced connector.
 *
 * <p>Contract (fenced writes): "condition the authoritative write on the document revision/idempotency key and
 * fencing guard". The function rejects (403 forbidden) a write whose {@code starintel_fence.fencing_token} is below
 * the token stored on the document, a write or deletion that drops the fence of a fenced document, and a change of
 * the fence's lock identity. Installation is idempotent: an equal or newer installed version is left alone.
 */
public final class FenceDesignDocument {

	/** Id of the design document. */
	public static final String ID = "_design/starintel_fence";

	/** Version of the validation rules in this library. */
	public static final int VERSION = 3;

	/** Field carrying the installed version. */
	public static final String VERSION_FIELD = "starintel_fence_version";

	/** Prefix of every rejection message of the design document. */
	public static final String MESSAGE_PREFIX = "starintel_fence: ";

	private static final String SOURCE = load();

	private FenceDesignDocument() {
	}

	/** The JavaScript source of {@code validate_doc_update}. */
	public static String validateFunction() {
		return SOURCE;
	}

	/**
	 * Installs or upgrades the design document through {@code raw}, the undecorated connector (a fenced connector
	 * would refuse the write: use its {@code installDesignDocument()}); returns the installed version. Safe to call
	 * from several instances at start-up (a concurrent installer's conflict is resolved by re-reading).
	 */
	public static int install(CouchDbConnector raw) {
		for (int attempt = 0; attempt < 3; attempt++) {
			ObjectNode existing = raw.find(ObjectNode.class, ID);
			int installed = versionOf(existing);
			if (existing != null && installed >= VERSION) {
				return installed;
			}
			Map<String, Object> doc = new LinkedHashMap<>();
			doc.put("_id", ID);
			if (existing != null) {
				doc.put("_rev", existing.get("_rev").asText());
			}
			doc.put("language", "javascript");
			doc.put(VERSION_FIELD, VERSION);
			doc.put("validate_doc_update", SOURCE);
			try {
				if (existing == null) {
					raw.create(doc);
				}
				else {
					raw.update(doc);
				}
				return VERSION;
			}
			catch (UpdateConflictException ex) {
				// another instance installed concurrently: re-read and decide again
			}
		}
		throw new IllegalStateException("Could not install " + ID + " after concurrent updates");
	}

	private static int versionOf(@Nullable ObjectNode doc) {
		if (doc == null) {
			return 0;
		}
		JsonNode version = doc.get(VERSION_FIELD);
		return (version != null && version.canConvertToInt()) ? version.asInt() : 0;
	}

	private static String load() {
		try (InputStream in = FenceDesignDocument.class
			.getResourceAsStream("/io/starintel/lease/fence/couchdb/validate_doc_update.js")) {
			if (in == null) {
				throw new IllegalStateException("validate_doc_update.js is missing from the classpath");
			}
			String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			// CouchDB expects the function itself: drop the leading comment lines
			return text.substring(text.indexOf("\nfunction") + 1);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
