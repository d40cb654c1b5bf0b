package io.starintel.lease.core.internal;

import io.starintel.lease.core.InvalidLeaseRequestException;

/**
 * The one home of the attached-key rules: the name syntax and the default bounds.
 *
 * <p>A name is 1..{@value #MAX_NAME_LENGTH} characters of {@code [A-Za-z0-9._-]}, starting with a letter or digit and
 * without {@code ..}: no glob or pattern syntax ({@code * ? [ ] \}), no path syntax ({@code /}, {@code ..}), no
 * separator of any store encoding ({@code :}, control characters), no whitespace. Stores never put a raw name in a
 * backend key name (the Redis store hashes it); the name is user data, returned by get and list.
 */
public final class AttachedKeys {

	/** Longest attached-key name. */
	public static final int MAX_NAME_LENGTH = 200;

	/** Default bound of an attached value, in UTF-8 bytes (64 KiB). */
	public static final int DEFAULT_MAXIMUM_VALUE_BYTES = 64 * 1024;

	/** Default bound of the number of keys attached to one lease. */
	public static final int DEFAULT_MAXIMUM_KEYS_PER_LEASE = 10_000;

	private AttachedKeys() {
	}

	/**
	 * Checks a name.
	 * @return the name
	 * @throws InvalidLeaseRequestException naming {@code attached_key} (never echoing the value)
	 */
	public static String requireName(String name) {
		if (!isValidName(name)) {
			throw new InvalidLeaseRequestException("attached_key",
					"must be 1.." + MAX_NAME_LENGTH + " characters of [A-Za-z0-9._-], start with a letter or digit,"
							+ " no '..'");
		}
		return name;
	}

	/** Whether a name satisfies the rule of {@link #requireName}. */
	public static boolean isValidName(String name) {
		if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
			return false;
		}
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			boolean alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
			if (i == 0 && !alnum) {
				return false;
			}
			if (!alnum && c != '.' && c != '_' && c != '-') {
				return false;
			}
			if (c == '.' && i > 0 && name.charAt(i - 1) == '.') {
				return false;
			}
		}
		return true;
	}

	/** The UTF-8 size of a value. */
	public static int valueBytes(String value) {
		int bytes = 0;
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c < 0x80) {
				bytes += 1;
			}
			else if (c < 0x800) {
				bytes += 2;
			}
			else if (Character.isHighSurrogate(c) && i + 1 < value.length()
					&& Character.isLowSurrogate(value.charAt(i + 1))) {
				bytes += 4;
				i++;
			}
			else {
				bytes += 3;
			}
		}
		return bytes;
	}

}
