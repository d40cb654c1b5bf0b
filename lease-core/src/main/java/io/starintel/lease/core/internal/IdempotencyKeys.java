package io.starintel.lease.core.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

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
		byte[] hex = key(EMPTY, operation, lockKey, principalId, requestId);
		return new String(hex, StandardCharsets.US_ASCII);
	}

	private static final byte[] EMPTY = new byte[0];

	private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

	/**
	 * {@code prefix} followed by {@link #hash} as ASCII bytes: the backend key of an idempotency record, built
	 * without the intermediate strings (the key text goes through one reused per-thread buffer).
	 */
	public static byte[] key(byte[] prefix, String operation, String lockKey, String principalId, String requestId) {
		RequestDigest.Buffer buffer = RequestDigest.BUFFER.get();
		buffer.length = 0;
		buffer.text(operation);
		buffer.put((byte) '\n');
		buffer.text(lockKey);
		buffer.put((byte) '\n');
		buffer.text(principalId);
		buffer.put((byte) '\n');
		buffer.text(requestId);
		MessageDigest sha = SHA_1.get();
		sha.reset();
		sha.update(buffer.bytes, 0, buffer.length);
		byte[] digest = sha.digest();
		byte[] out = java.util.Arrays.copyOf(prefix, prefix.length + digest.length * 2);
		for (int i = 0; i < digest.length; i++) {
			out[prefix.length + 2 * i] = HEX[(digest[i] >> 4) & 0xf];
			out[prefix.length + 2 * i + 1] = HEX[digest[i] & 0xf];
		}
		return out;
	}

}
