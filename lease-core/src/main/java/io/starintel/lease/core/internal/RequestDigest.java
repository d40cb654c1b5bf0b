package io.starintel.lease.core.internal;

import java.nio.charset.StandardCharsets;
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

	/** SHA-256 over the operation name and the length-prefixed fields, unpadded base64url. */
	public static String of(Operation operation, Object... fields) {
		MessageDigest sha = SHA_256.get();
		sha.reset();
		Buffer buffer = BUFFER.get();
		buffer.length = 0;
		buffer.field(operation.wireName());
		for (Object field : fields) {
			buffer.field(String.valueOf(field));
		}
		sha.update(buffer.bytes, 0, buffer.length);
		return Base64.getUrlEncoder().withoutPadding().encodeToString(sha.digest());
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
			int n = value.length();
			ensure(n);
			for (int i = 0; i < n; i++) {
				char c = value.charAt(i);
				if (c >= 0x80) {
					byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
					ensure(utf8.length);
					System.arraycopy(utf8, 0, this.bytes, this.length, utf8.length);
					this.length += utf8.length;
					return;
				}
			}
			for (int i = 0; i < n; i++) {
				this.bytes[this.length++] = (byte) value.charAt(i);
			}
		}

		void field(String value) {
			int ascii = value.length();
			for (int i = 0; i < value.length(); i++) {
				if (value.charAt(i) >= 0x80) {
					ascii = -1;
					break;
				}
			}
			if (ascii >= 0) {
				decimal(ascii);
				put((byte) ':');
				ensure(ascii);
				for (int i = 0; i < ascii; i++) {
					this.bytes[this.length++] = (byte) value.charAt(i);
				}
				return;
			}
			byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
			decimal(utf8.length);
			put((byte) ':');
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
