package io.starintel.lease.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Digest of every behaviour-affecting input of a mutating request.
 *
 * <p>Contract: a retry with the same idempotency key and digest returns the original result; reuse with a
 * different digest is {@code idempotency_conflict}. Each field is length-prefixed so that no two field lists
 * share an encoding. The deadline is a transport bound, not a behaviour input, so retries may carry a fresh one.
 */
public final class RequestDigest {

	private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required by the Java platform", ex);
		}
	});

	private RequestDigest() {
	}

	/** SHA-256 over the operation name and the length-prefixed fields, unpadded base64url. */
	public static String of(Operation operation, Object... fields) {
		MessageDigest sha = SHA_256.get();
		sha.reset();
		update(sha, operation.wireName());
		for (Object field : fields) {
			update(sha, String.valueOf(field));
		}
		return Base64.getUrlEncoder().withoutPadding().encodeToString(sha.digest());
	}

	private static void update(MessageDigest sha, String value) {
		byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
		sha.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
		sha.update((byte) ':');
		sha.update(bytes);
	}

}
