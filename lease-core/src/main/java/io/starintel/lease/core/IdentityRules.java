package io.starintel.lease.core;

import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.Locale;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The per-character and per-component rules of lock-key v1 (docs/spec/lock-key-v1.md, a copy of the shared spec), in one place.
 */
final class IdentityRules {

	static final int SLUG_MAX_CHARS = 64;

	static final int TARGET_ID_MAX_BYTES = 256;

	private static final Pattern SLUG = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

	private static final String FORBIDDEN_SYNTAX = "/\\\"*?[]%";

	private IdentityRules() {
	}

	/** Rules 1-4 of every component: well-formed, NFC, no forbidden category, no path/pattern syntax. */
	static String common(String component, String raw) {
		if (raw == null || raw.isEmpty()) {
			throw new InvalidLeaseRequestException(component, "empty");
		}
		if (!isWellFormed(raw)) {
			throw new InvalidLeaseRequestException(component, "malformed UTF-16");
		}
		String value = Normalizer.normalize(raw, Normalizer.Form.NFC);
		for (int i = 0; i < value.length();) {
			int cp = value.codePointAt(i);
			if (isForbiddenCategory(cp)) {
				throw new InvalidLeaseRequestException(component, "bad char");
			}
			if (FORBIDDEN_SYNTAX.indexOf(cp) >= 0) {
				throw new InvalidLeaseRequestException(component, "path/glob syntax");
			}
			i += Character.charCount(cp);
		}
		if (value.equals(".") || value.contains("..")) {
			throw new InvalidLeaseRequestException(component, "path/glob syntax");
		}
		return value;
	}

	/** Case-insensitive ASCII slug component of 1..64 characters, lowercased. */
	static String slug(String component, String raw) {
		if (isCanonicalSlug(raw)) {
			return raw; // the hot path: already canonical (every rule below holds), no allocation, no regex
		}
		String value = common(component, raw);
		if (value.length() > SLUG_MAX_CHARS) {
			throw new InvalidLeaseRequestException(component, "longer than " + SLUG_MAX_CHARS + " characters");
		}
		if (!SLUG.matcher(value).matches()) {
			throw new InvalidLeaseRequestException(component, "bad char");
		}
		return value.toLowerCase(Locale.ROOT);
	}

	/**
	 * Whether {@code value} already is a canonical slug: 1..64 characters, {@code [a-z0-9]} first, then
	 * {@code [a-z0-9._-]}, no {@code ..} and not {@code .} (plain ASCII, so well-formed, NFC and free of every
	 * forbidden category and syntax character of {@link #common}).
	 */
	private static boolean isCanonicalSlug(@Nullable String value) {
		if (value == null || value.isEmpty() || value.length() > SLUG_MAX_CHARS) {
			return false;
		}
		char previous = 0;
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			boolean alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
			if (!alnum && (i == 0 || (c != '.' && c != '_' && c != '-') || (c == '.' && previous == '.'))) {
				return false;
			}
			previous = c;
		}
		return true;
	}

	/** Case-preserving target id of 1..256 UTF-8 bytes that does not start with an underscore. */
	static String targetId(String raw) {
		if (isPlainTargetId(raw)) {
			return raw; // the hot path: printable ASCII that passes every rule below as it is
		}
		String value = common("target_id", raw);
		if (value.startsWith("_")) {
			throw new InvalidLeaseRequestException("target_id", "leading underscore");
		}
		if (value.getBytes(StandardCharsets.UTF_8).length > TARGET_ID_MAX_BYTES) {
			throw new InvalidLeaseRequestException("target_id", "longer than " + TARGET_ID_MAX_BYTES + " UTF-8 bytes");
		}
		return value;
	}

	/**
	 * Whether {@code value} is 1..256 printable ASCII characters (so well-formed, NFC, one byte each, no forbidden
	 * category) without path/glob syntax, {@code ..} or a leading underscore, and is not {@code .}.
	 */
	private static boolean isPlainTargetId(@Nullable String value) {
		if (value == null || value.isEmpty() || value.length() > TARGET_ID_MAX_BYTES || value.charAt(0) == '_'
				|| value.equals(".")) {
			return false;
		}
		char previous = 0;
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c <= ' ' || c >= 0x7f || FORBIDDEN_SYNTAX.indexOf(c) >= 0 || (c == '.' && previous == '.')) {
				return false;
			}
			previous = c;
		}
		return true;
	}

	private static boolean isWellFormed(String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (Character.isHighSurrogate(c)) {
				if (i + 1 >= value.length() || !Character.isLowSurrogate(value.charAt(i + 1))) {
					return false;
				}
				i++;
			}
			else if (Character.isLowSurrogate(c)) {
				return false;
			}
		}
		return true;
	}

	private static boolean isForbiddenCategory(int cp) {
		return switch (Character.getType(cp)) {
			case Character.CONTROL, Character.FORMAT, Character.SURROGATE, Character.PRIVATE_USE, Character.UNASSIGNED,
					Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR, Character.SPACE_SEPARATOR ->
				true;
			default -> false;
		};
	}

}
