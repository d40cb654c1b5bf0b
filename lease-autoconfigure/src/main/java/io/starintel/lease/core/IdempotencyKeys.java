package io.starintel.lease.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The idempotency key rule, its one home: a mutating request is identified by {@code (operation, lock key,
 * principal, request id)}; its digest ({@link RequestDigest}) decides replay versus {@code idempotency_conflict}.
 * Stores that name the key in a backend use {@link #hash} (SHA-1 hex of the four parts joined by newlines; none of
 * them can contain a newline), so no principal or request id appears in a key name.
 */
public final class IdempotencyKeys {

	private static final ThreadLocal<MessageDigest> SHA_1 = ThreadLocal.withInitial(() -> {
		try {
			return MessageDigest.getInstance("SHA-1");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is required by the Java platform", ex);
		}
	});

	private IdempotencyKeys() {
	}

	/** The plain key text: the four parts joined by newlines. */
	public static String text(String operation, String lockKey, String principalId, String requestId) {
		return operation + "\n" + lockKey + "\n" + principalId + "\n" + requestId;
	}

	/** SHA-1 hex of {@link #text}. */
	public static String hash(String operation, String lockKey, String principalId, String requestId) {
		byte[] digest = SHA_1.get().digest(text(operation, lockKey, principalId, requestId)
			.getBytes(StandardCharsets.UTF_8));
		return HexFormat.of().formatHex(digest);
	}

}
