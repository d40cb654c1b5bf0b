package io.starintel.lease.store.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;

import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.internal.StoredRecord;

import static io.starintel.lease.store.redis.IdentityKeys.bytes;

/** The byte encodings the argument builders share: numbers, times, the policy text and record prefixes. */
final class ArgumentBytes {

	private ArgumentBytes() {
	}

	/**
	 * The policy argument of every function ({@code lease.lua}: retention, maximum deadline, clock skew, physical
	 * grace, history length and retention, retry window, separated by {@link StoredRecord#SEP}), built once per
	 * store.
	 */
	static byte[] policy(LeasePolicy policy, Duration physicalGrace) {
		char sep = StoredRecord.SEP;
		return bytes(policy.idempotencyRetention().toMillis() + "" + sep + policy.maximumDeadline().toMillis() + sep
				+ policy.clockSkewBound().toMillis() + sep + physicalGrace.toMillis() + sep + policy.historyLength()
				+ sep + policy.historyRetention().toMillis() + sep + policy.retryWindow().toMillis());
	}

	static byte[] millis(Instant instant) {
		return number(instant.toEpochMilli());
	}

	/**
	 * {@link StoredRecord#holderPrefix} as UTF-8 bytes, from the identity's cached prefix bytes (the identifiers
	 * are ASCII by their rule, so each character is one byte).
	 */
	static byte[] holderPrefix(IdentityKeys t, LeaseHandle h) {
		String a = h.leaseId();
		String b = h.ownerPrincipalId();
		String c = h.serviceInstanceId();
		byte[] prefix = t.identityPrefixBytes;
		byte[] out = Arrays.copyOf(prefix, prefix.length + a.length() + b.length() + c.length() + 3);
		int at = prefix.length;
		at = ascii(out, at, a);
		out[at++] = (byte) StoredRecord.SEP;
		at = ascii(out, at, b);
		out[at++] = (byte) StoredRecord.SEP;
		at = ascii(out, at, c);
		out[at] = (byte) StoredRecord.SEP;
		return out;
	}

	/**
	 * The parts joined by {@link StoredRecord#SEP} as UTF-8, in one exact-size array when they are ASCII: for the
	 * fixed-part rest this is {@link StoredRecord#fixedRest} (same order), which the reference encoder checks.
	 */
	static byte[] joined(String... parts) {
		int length = parts.length - 1;
		for (String part : parts) {
			for (int i = 0; i < part.length(); i++) {
				if (part.charAt(i) >= 0x80) {
					return bytes(String.join(String.valueOf(StoredRecord.SEP), parts));
				}
			}
			length += part.length();
		}
		byte[] out = new byte[length];
		int at = 0;
		for (int p = 0; p < parts.length; p++) {
			if (p > 0) {
				out[at++] = (byte) StoredRecord.SEP;
			}
			at = ascii(out, at, parts[p]);
		}
		return out;
	}

	private static int ascii(byte[] out, int at, String text) {
		for (int i = 0; i < text.length(); i++) {
			out[at++] = (byte) text.charAt(i);
		}
		return at;
	}

	/** The decimal digits of a number as ASCII bytes, written directly (no intermediate string). */
	static byte[] number(long value) {
		if (value < 0) {
			return bytes(Long.toString(value));
		}
		int digits = digits(value);
		byte[] out = new byte[digits];
		writeDigits(out, 0, digits, value);
		return out;
	}

	/** How many decimal digits a non-negative number has. */
	static int digits(long value) {
		int digits = 1;
		for (long v = value / 10; v > 0; v /= 10) {
			digits++;
		}
		return digits;
	}

	/** Writes the {@code digits} decimal digits of a non-negative number at {@code at}. */
	static void writeDigits(byte[] out, int at, int digits, long value) {
		for (int i = at + digits - 1; i >= at; i--) {
			out[i] = (byte) ('0' + value % 10);
			value /= 10;
		}
	}

}
