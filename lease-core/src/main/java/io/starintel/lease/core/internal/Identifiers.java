package io.starintel.lease.core.internal;

import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

import io.starintel.lease.core.InvalidLeaseRequestException;

/**
 * Bounded, non-secret identifiers (request, lease, principal, credential, instance, execution, job, trace ids).
 *
 * <p>Contract: all identifiers are bounded. An identifier is 1..128 characters of
 * {@code [A-Za-z0-9._:@-]}; nothing is trimmed or replaced.
 */
public final class Identifiers {

	/** Maximum identifier length in characters. */
	public static final int MAX_LENGTH = 128;

	private static final byte[] CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".getBytes(StandardCharsets.US_ASCII);

	/** {@code ALLOWED[c]}: whether ASCII character {@code c} may appear in an identifier (one lookup per character). */
	private static final boolean[] ALLOWED = allowed();

	private static boolean[] allowed() {
		boolean[] allowed = new boolean[128];
		for (char c = 0; c < 128; c++) {
			allowed[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
					|| c == '_' || c == ':' || c == '@' || c == '-';
		}
		return allowed;
	}

	/** One generator per thread: no lock shared by the threads of a busy client (the platform default locks). */
	private static final ThreadLocal<Source> RANDOM = ThreadLocal
		.withInitial(() -> new Source(newRandom(), new byte[17]));

	private Identifiers() {
	}

	/**
	 * Checks one identifier.
	 * @throws InvalidLeaseRequestException naming the field when the value is null, empty, too long or
	 * contains a character outside the allowed set
	 */
	public static String require(String field, String value) {
		if (!isValid(value)) {
			throw new InvalidLeaseRequestException(field, "identifier must be 1.." + MAX_LENGTH
					+ " characters of [A-Za-z0-9._:@-]");
		}
		return value;
	}

	/** Whether {@code value} is 1..128 characters of {@code [A-Za-z0-9._:@-]} (no regular expression). */
	public static boolean isValid(String value) {
		if (value == null || value.isEmpty() || value.length() > MAX_LENGTH) {
			return false;
		}
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c >= ALLOWED.length || !ALLOWED[c]) {
				return false;
			}
		}
		return true;
	}

	/** Seeds the per-thread generators (the platform default: non-blocking /dev/urandom on Linux). */
	private static final SecureRandom SEEDS = new SecureRandom();

	/** A per-thread generator seeded from {@link #SEEDS} before first use, so it never blocks on entropy. */
	private static SecureRandom newRandom() {
		byte[] seed = new byte[32];
		SEEDS.nextBytes(seed);
		try {
			SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
			random.setSeed(seed);
			return random;
		}
		catch (NoSuchAlgorithmException ex) {
			return new SecureRandom(seed);
		}
	}

	/** Generates a new random identifier {@code prefix_} + 26 Crockford base32 characters (130 random bits). */
	public static String generate(String prefix) {
		// ASCII written straight into the string's bytes: no StringBuilder, no random buffer per id
		int length = prefix.length() + 27;
		byte[] id = new byte[length];
		int at = 0;
		for (; at < prefix.length(); at++) {
			char c = prefix.charAt(at);
			if (c > 0x7f) {
				return prefix + generate(""); // not ASCII (no caller's prefix is): "_" and the random part appended
			}
			id[at] = (byte) c;
		}
		Source source = RANDOM.get();
		byte[] bytes = source.bytes;
		source.random.nextBytes(bytes);
		id[at++] = '_';
		long buffer = 0;
		int bits = 0;
		for (byte b : bytes) {
			buffer = (buffer << 8) | (b & 0xff);
			bits += 8;
			while (bits >= 5 && at < length) {
				bits -= 5;
				id[at++] = CROCKFORD[(int) ((buffer >> bits) & 31)];
			}
		}
		return new String(id, StandardCharsets.ISO_8859_1);
	}

	/** A thread's generator and its buffer of random bytes (only used on that thread). */
	private record Source(SecureRandom random, byte[] bytes) {

	}

}
