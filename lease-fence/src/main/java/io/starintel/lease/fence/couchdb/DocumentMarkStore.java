package io.starintel.lease.fence.couchdb;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.store.redis.internal.RedisKeys;

/**
 * The store of each fenced CouchDB document's durable mark in Redis: the highest token accepted for the document,
 * and its lock identity, in the hash {@code P{T}:couchdb:marks} of the writer's program ({@code mark.lua}). CouchDB
 * cannot guard {@code _purge}: a purged document followed by a re-create with a lower token passes
 * {@code validate_doc_update}; the fenced reader reports such a document because its token is below the mark.
 * Field names are a SHA-256 of database and document id (no document id in key material).
 */
public final class DocumentMarkStore {

	private static final Logger logger = LoggerFactory.getLogger(DocumentMarkStore.class);

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> MARK = new DefaultRedisScript<>(read("mark.lua"), List.class);

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> READ = new DefaultRedisScript<>(read("read_mark.lua"), List.class);

	private final StringRedisTemplate redis;

	/** Marks on the given Redis (the lease store's). */
	public DocumentMarkStore(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/** The marks hash of a program. */
	public static String key(ProgramScope scope) {
		return new RedisKeys(scope).base() + "couchdb:marks";
	}

	/** The field of one document. */
	public static String field(String database, String id) {
		try {
			byte[] hash = MessageDigest.getInstance("SHA-256")
				.digest((database + "\n" + id).getBytes(StandardCharsets.UTF_8));
			return Base64.getUrlEncoder().withoutPadding().encodeToString(hash);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required by the Java platform", ex);
		}
	}

	/**
	 * Raises the mark after an accepted write; {@code false} when Redis did not confirm it (logged: the write itself
	 * stands, the mark lags until the next write of the document).
	 */
	public boolean raise(ProgramScope scope, String database, String id, String digest, long token) {
		try {
			List<?> reply = this.redis.execute(MARK, List.of(key(scope)), field(database, id), digest,
					Long.toString(token));
			return reply != null && !reply.isEmpty() && !"identity_differs".equals(String.valueOf(reply.get(0)));
		}
		catch (RuntimeException ex) {
			logger.warn("CouchDB fence mark not raised, error={}", ex.getClass().getSimpleName());
			return false;
		}
	}

	/** The mark and the identity's issued counter; throws a Redis exception that the reader turns into a result. */
	public Mark read(ProgramScope scope, String database, String id, @Nullable String fallbackDigest) {
		List<?> reply = this.redis.execute(READ, List.of(key(scope)), field(database, id),
				(fallbackDigest != null) ? fallbackDigest : "", new RedisKeys(scope).fence(""));
		if (reply == null || reply.size() < 3) {
			throw new IllegalStateException("no reply");
		}
		String digest = String.valueOf(reply.get(0));
		String token = String.valueOf(reply.get(1));
		String counter = String.valueOf(reply.get(2));
		return new Mark(digest.isEmpty() ? null : digest, token.isEmpty() ? 0 : Long.parseLong(token),
				counter.isEmpty() ? -1 : Long.parseLong(counter));
	}

	/** A stored mark ({@code digest == null}: none) and the issued counter ({@code -1}: none). */
	public record Mark(@Nullable String digest, long token, long issuedCounter) {
	}

	private static String read(String name) {
		try (InputStream in = new ClassPathResource("/io/starintel/lease/fence/couchdb/" + name).getInputStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
