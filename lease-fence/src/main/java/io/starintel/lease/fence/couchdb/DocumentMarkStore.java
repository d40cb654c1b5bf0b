package io.starintel.lease.fence.couchdb;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.store.redis.FenceCallException;
import io.starintel.lease.store.redis.FenceCalls;
import io.starintel.lease.store.redis.FenceFunction;

/**
 * The store of each fenced CouchDB document's durable mark in Redis: the highest token accepted for the document,
 * and its lock identity, in the hash {@code P{T}:couchdb:marks} of the writer's program (the library functions
 * {@code mark_raise} and {@code mark_read}, {@code fence.lua}, with a deadline and the store's replica
 * acknowledgement). CouchDB
 * cannot guard {@code _purge}: a purged document followed by a re-create with a lower token passes
 * {@code validate_doc_update}; the fenced reader reports such a document because its token is below the mark.
 * Field names are a SHA-256 of database and document id (no document id in key material).
 */
public final class DocumentMarkStore {

	private static final Logger logger = LoggerFactory.getLogger(DocumentMarkStore.class);

	/** The deadline of each mark call, from when it is sent. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

	private final FenceCalls calls;

	private final Duration timeout;

	/** Marks on the given Redis (the lease store's deployment), on their own fence calls. */
	public DocumentMarkStore(StringRedisTemplate redis) {
		this(FenceCalls.create(redis::getRequiredConnectionFactory, "starintel-lease"), DEFAULT_TIMEOUT);
	}

	/** Marks through the lease store's fence calls, each call bounded by {@code timeout}. */
	public DocumentMarkStore(FenceCalls calls, Duration timeout) {
		if (timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("timeout must be positive");
		}
		this.calls = calls;
		this.timeout = timeout;
	}

	/** The marks hash of a program. */
	public static String key(ProgramScope scope) {
		return FenceCalls.base(scope) + "couchdb:marks";
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
	 * Raises the mark after an accepted write, within this store's timeout; {@code false} when Redis did not confirm
	 * it, or refused it because the document's mark names another lock identity (both logged: the write itself
	 * stands; the fenced writer reports {@code fenced_write_accepted_mark_pending}, or
	 * {@code fenced_write_accepted_mark_refused} for the refusal).
	 */
	public boolean raise(ProgramScope scope, String database, String id, String digest, long token) {
		return raise(scope, database, id, digest, token, deadline());
	}

	/** The deadline of a call (or of several raises sharing one budget, a bulk write's) sent now. */
	public Instant deadline() {
		return Instant.now().plus(this.timeout);
	}

	/**
	 * Raises the mark within the given deadline (a bulk write's raises share one); {@code false} when Redis did not
	 * confirm it in time, or the deadline had already passed (then nothing is sent), or the mark names another lock
	 * identity. The mark keeps no lease id: a fenced read then accepts the mark's token with any lease id (the fenced
	 * writes raise with their lease id).
	 */
	public boolean raise(ProgramScope scope, String database, String id, String digest, long token,
			Instant deadline) {
		return raise(scope, database, id, digest, token, "", deadline).confirmed();
	}

	/**
	 * Raises the mark with the lease id of the write (one token belongs to one lease): a fenced read accepts the
	 * mark's token only with that lease id, so a forged fence that copies the token but names another lease is
	 * reported as forged.
	 */
	Raise raise(ProgramScope scope, String database, String id, String digest, long token, String leaseId,
			Instant deadline) {
		List<Object> reply;
		try {
			reply = this.calls.run(FenceFunction.MARK_RAISE, deadline, bytes(key(scope)),
					bytes(Long.toString(deadline.toEpochMilli()), field(database, id), digest, Long.toString(token),
							leaseId));
		}
		catch (FenceCallException ex) {
			logger.warn("CouchDB fence mark not raised, error={} reason={}", ex.kind(), ex.reason().wireName());
			return Raise.NOT_CONFIRMED;
		}
		String outcome = reply.isEmpty() ? "" : text(reply.get(0));
		switch (outcome) {
			case "raised":
				return Raise.RAISED;
			case "kept":
				return Raise.KEPT;
			case "identity_differs":
				// never retryable: a mark keeps its identity (fence.lua mark_raise); the field is a hash, no document id
				logger.warn("CouchDB fence mark refused: the document's mark names another lock identity "
						+ "(mark_identity={}, write_identity={}, field={}); the document reads FORGED until recovered",
						(reply.size() > 1) ? text(reply.get(1)) : "", digest, field(database, id));
				return Raise.IDENTITY_DIFFERS;
			default:
				logger.warn("CouchDB fence mark not raised, reply={}", outcome);
				return Raise.NOT_CONFIRMED;
		}
	}

	/** What a raise did ({@code fence.lua} {@code mark_raise}'s reply, or no answer in time). */
	enum Raise {

		/** The mark is now the write's token. */
		RAISED,
		/** The mark was already at or above the write's token, of the same identity. */
		KEPT,
		/** The mark names another lock identity: refused for good (a retry answers the same). */
		IDENTITY_DIFFERS,
		/** No answer in time, or the call failed: the mark may be raised by a retry. */
		NOT_CONFIRMED;

		boolean confirmed() {
			return this == RAISED || this == KEPT;
		}

	}

	/**
	 * The mark and the identity's issued counter, within the deadline.
	 * @throws IllegalStateException when there is no usable answer (the reader turns it into a result)
	 */
	public Mark read(ProgramScope scope, String database, String id, @Nullable String fallbackDigest) {
		return check(scope, database, id, fallbackDigest, List.of()).mark();
	}

	/**
	 * The mark, the identity's issued counter and, for each claim, whether the lease store issued its token with its
	 * lease id for the identity (the mark's, else {@code fallbackDigest}), in one call within the deadline.
	 * @throws IllegalStateException when there is no usable answer (also: a corrupt identity, which cannot tell what
	 * it issued)
	 */
	Checked check(ProgramScope scope, String database, String id, @Nullable String fallbackDigest,
			List<Claim> claims) {
		Instant deadline = Instant.now().plus(this.timeout);
		String expected = (fallbackDigest != null) ? fallbackDigest : "";
		List<String> args = new ArrayList<>();
		args.add(Long.toString(deadline.toEpochMilli()));
		args.add(field(database, id));
		args.add(FenceCalls.base(scope));
		args.add(expected);
		for (Claim claim : claims) {
			args.add(claim.leaseId());
			args.add(Long.toString(claim.token()));
		}
		List<Object> reply;
		try {
			reply = this.calls.run(FenceFunction.MARK_READ, deadline,
					bytes(key(scope), FenceCalls.identityKey(scope, expected.isEmpty() ? "none" : expected)),
					bytes(args.toArray(String[]::new)));
		}
		catch (FenceCallException ex) {
			throw new IllegalStateException("mark read: " + ex.kind());
		}
		if (reply.size() < 3) {
			throw new IllegalStateException("no reply");
		}
		String digest = text(reply.get(0));
		String token = text(reply.get(1));
		String counter = text(reply.get(2));
		Mark mark;
		try {
			mark = new Mark(digest.isEmpty() ? null : digest, token.isEmpty() ? 0 : Long.parseLong(token),
					counter.isEmpty() ? -1 : Long.parseLong(counter));
		}
		catch (NumberFormatException ex) {
			// a mark or counter that is not a number (a corrupt identity): no usable answer, never a guess
			throw new IllegalStateException("mark read: not a number");
		}
		if (!claims.isEmpty() && reply.size() < 4 + claims.size()) {
			// a corrupt identity answers no claim: what it issued is unknown, never assumed either way
			throw new IllegalStateException("mark read: no issuance answer");
		}
		String leaseId = (reply.size() > 3) ? text(reply.get(3)) : "";
		List<Boolean> issued = new ArrayList<>(claims.size());
		for (int i = 0; i < claims.size(); i++) {
			issued.add("1".equals(text(reply.get(4 + i))));
		}
		return new Checked(mark, leaseId.isEmpty() ? null : leaseId, issued);
	}

	/** A stored mark ({@code digest == null}: none) and the issued counter ({@code -1}: none). */
	public record Mark(@Nullable String digest, long token, long issuedCounter) {
	}

	/** A lease id and token a document's fence claims, to be checked against what the lease store issued. */
	record Claim(String leaseId, long token) {
	}

	/**
	 * A mark read with claims: the mark, the lease id that wrote the mark's token ({@code null}: none kept), and per
	 * claim (in order) whether the store issued it for the identity.
	 */
	record Checked(Mark mark, @Nullable String markLeaseId, List<Boolean> issued) {
	}

	private static byte[][] bytes(String... values) {
		byte[][] out = new byte[values.length][];
		for (int i = 0; i < values.length; i++) {
			out[i] = values[i].getBytes(StandardCharsets.UTF_8);
		}
		return out;
	}

	private static String text(@Nullable Object value) {
		return (value instanceof byte[] raw) ? new String(raw, StandardCharsets.UTF_8) : String.valueOf(value);
	}

}
