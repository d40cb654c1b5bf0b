package io.starintel.lease.core.internal;

import org.jspecify.annotations.Nullable;

/**
 * The one rule of free text a request may carry where control characters are refused (an administrator's reason,
 * metadata strings, a CouchDB document id): no control character (Unicode category Cc), no format character (Cf, e.g.
 * U+200B, U+202E), no line or paragraph separator (Zl, Zp: U+2028, U+2029) and no unpaired surrogate. Such characters
 * would show raw (or reorder text) in the console and in logs, and an unpaired surrogate has no UTF-8 form: the
 * durable record (the audit stream, the store) would differ from what was submitted. Two format characters are
 * allowed, as ordinary text needs them and they reorder or hide nothing: U+200C ZERO WIDTH NON-JOINER (Persian and
 * Indic scripts) and U+200D ZERO WIDTH JOINER (emoji sequences, Indic scripts).
 */
public final class PlainText {

	private static final int ZERO_WIDTH_NON_JOINER = 0x200C;

	private static final int ZERO_WIDTH_JOINER = 0x200D;

	private PlainText() {
	}

	/** What is wrong with {@code text} under the rule, or {@code null} when it holds. */
	public static @Nullable String problem(String text) {
		for (int i = 0; i < text.length();) {
			int cp = text.codePointAt(i);
			if (Character.isSurrogate((char) cp) && Character.charCount(cp) == 1) {
				return "not valid Unicode (an unpaired surrogate)";
			}
			switch (Character.getType(cp)) {
				case Character.CONTROL:
					return "control characters";
				case Character.FORMAT:
					if (cp != ZERO_WIDTH_NON_JOINER && cp != ZERO_WIDTH_JOINER) {
						return "format or line separator characters";
					}
					break;
				case Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR:
					return "format or line separator characters";
				default:
					break;
			}
			i += Character.charCount(cp);
		}
		return null;
	}

	/** Whether {@code text} holds the rule. */
	public static boolean isPlain(String text) {
		return problem(text) == null;
	}

}
