package io.starintel.lease.core.internal;

import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import io.starintel.lease.core.Operation;

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

	private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

	/** SHA-256 over the operation name and the length-prefixed fields, unpadded base64url. */
	public static String of(Operation operation, Object... fields) {
		Fields digest = start(operation);
		for (Object field : fields) {
			digest.field(String.valueOf(field));
		}
		return digest.digest();
	}

	/**
	 * The same digest as {@link #of} built field by field, without an argument array, boxing or decimal strings:
	 * {@code start(op).field(a).field(n).digest()} equals {@code of(op, a, n)}. The returned object is this thread's
	 * and is reused by its next {@code start}: finish one digest before starting another.
	 */
	public static Fields start(Operation operation) {
		Fields fields = FIELDS.get();
		fields.buffer.length = 0;
		fields.buffer.field(operation.wireName());
		return fields;
	}

	private static final ThreadLocal<Fields> FIELDS = ThreadLocal.withInitial(Fields::new);

	/** The fields of one digest being built on this thread ({@link #start}). */
	public static final class Fields {

		private final Buffer buffer = new Buffer();

		private final byte[] sha = new byte[32];

		private Fields() {
		}

		/** The next field: {@code value}'s text, {@code "null"} for null (as {@link String#valueOf(Object)}). */
		public Fields field(String value) {
			this.buffer.field((value != null) ? value : "null");
			return this;
		}

		/** The next field: the text of {@code prefix + value} (two non-null strings), without concatenating them. */
		public Fields field(String prefix, String value) {
			this.buffer.field(prefix, value);
			return this;
		}

		/** The next field: {@code value} in decimal (as {@link Long#toString(long)}). */
		public Fields field(long value) {
			this.buffer.number(value);
			return this;
		}

		/** The next field: {@code value} in decimal, {@code "null"} for null. */
		public Fields field(Long value) {
			return (value != null) ? field(value.longValue()) : field((String) null);
		}

		/** SHA-256 of the fields so far, unpadded base64url. */
		public String digest() {
			MessageDigest digest = SHA_256.get();
			digest.reset();
			digest.update(this.buffer.bytes, 0, this.buffer.length);
			try {
				digest.digest(this.sha, 0, this.sha.length);
			}
			catch (DigestException ex) {
				throw new IllegalStateException("SHA-256 digest of 32 bytes", ex);
			}
			return BASE64URL.encodeToString(this.sha);
		}

	}

	static final ThreadLocal<Buffer> BUFFER = ThreadLocal.withInitial(Buffer::new);

	/**
	 * The digest input, built in one reused array per thread: each field as its UTF-8 length in decimal, ':', then
	 * its UTF-8 bytes (the same bytes as hashing each part on its own).
	 */
	static final class Buffer {

		byte[] bytes = new byte[512];

		int length;

		/** The UTF-8 bytes of {@code value}, nothing else. */
		void text(String value) {
			if (isAscii(value)) {
				ascii(value);
				return;
			}
			utf8(value.getBytes(StandardCharsets.UTF_8));
		}

		/** The field {@code value}: its UTF-8 length in decimal, ':', its UTF-8 bytes. */
		void field(String value) {
			if (isAscii(value)) {
				decimal(value.length());
				put((byte) ':');
				ascii(value);
				return;
			}
			byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
			decimal(utf8.length);
			put((byte) ':');
			utf8(utf8);
		}

		/** The field {@code prefix + value} (both non-null): the same bytes as {@code field(prefix + value)}. */
		void field(String prefix, String value) {
			if (!isAscii(prefix) || !isAscii(value)) {
				field(prefix + value);
				return;
			}
			decimal(prefix.length() + value.length());
			put((byte) ':');
			ascii(prefix);
			ascii(value);
		}

		/** The field of {@code value} in decimal: the same bytes as {@code field(Long.toString(value))}. */
		void number(long value) {
			if (value == Long.MIN_VALUE) {
				field(Long.toString(value));
				return;
			}
			int digits = 1;
			for (long rest = Math.abs(value) / 10; rest > 0; rest /= 10) {
				digits++;
			}
			decimal((value < 0) ? digits + 1 : digits);
			put((byte) ':');
			ensure(digits + 1);
			if (value < 0) {
				this.bytes[this.length++] = '-';
				value = -value;
			}
			for (int i = this.length + digits - 1; i >= this.length; i--) {
				this.bytes[i] = (byte) ('0' + value % 10);
				value /= 10;
			}
			this.length += digits;
		}

		private static boolean isAscii(String value) {
			for (int i = 0; i < value.length(); i++) {
				if (value.charAt(i) >= 0x80) {
					return false;
				}
			}
			return true;
		}

		private void ascii(String value) {
			int n = value.length();
			ensure(n);
			for (int i = 0; i < n; i++) {
				this.bytes[this.length++] = (byte) value.charAt(i);
			}
		}

		private void utf8(byte[] utf8) {
			ensure(utf8.length);
			System.arraycopy(utf8, 0, this.bytes, this.length, utf8.length);
			this.length += utf8.length;
		}

		private void decimal(int value) {
			ensure(10);
			int start = this.length;
			do {
				this.bytes[this.length++] = (byte) ('0' + value % 10);
				value /= 10;
			}
			while (value > 0);
			for (int i = start, j = this.length - 1; i < j; i++, j--) {
				byte t = this.bytes[i];
				this.bytes[i] = this.bytes[j];
				this.bytes[j] = t;
			}
		}

		void put(byte b) {
			ensure(1);
			this.bytes[this.length++] = b;
		}

		private void ensure(int more) {
			if (this.length + more > this.bytes.length) {
				this.bytes = java.util.Arrays.copyOf(this.bytes, Math.max(this.bytes.length * 2, this.length + more));
			}
		}

	}

}
