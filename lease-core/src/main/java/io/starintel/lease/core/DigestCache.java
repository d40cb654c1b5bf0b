package io.starintel.lease.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Memoizes the SHA-256 digests of identities and scopes (every lease operation needs them several times) in a
 * bounded map: past {@value #MAXIMUM_ENTRIES} entries it starts over, so memory stays bounded whatever the
 * number of targets. Values are pure functions of the keys, so a cache miss only costs time.
 */
final class DigestCache {

	static final int MAXIMUM_ENTRIES = 65_536;

	private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required by the Java platform", ex);
		}
	});

	private static final Map<Object, String> DIGESTS = new ConcurrentHashMap<>();

	private DigestCache() {
	}

	/** The memoized digest of {@code key}, computed by {@code digest} on a miss. */
	static <K> String get(K key, Function<K, String> digest) {
		String cached = DIGESTS.get(key);
		if (cached != null) {
			return cached;
		}
		String value = digest.apply(key);
		if (DIGESTS.size() >= MAXIMUM_ENTRIES) {
			DIGESTS.clear();
		}
		DIGESTS.put(key, value);
		return value;
	}

	/** Unpadded base64url of SHA-256 over the UTF-8 bytes of {@code text}. */
	static String base64Sha256(String text) {
		byte[] digest = SHA_256.get().digest(text.getBytes(StandardCharsets.UTF_8));
		return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
	}

}
