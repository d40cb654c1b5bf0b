package io.starintel.lease.core.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.ListFilter;

/**
 * The list cursor, its one home: opaque and tamper-evident. A cursor is {@code base64url(version, nonce,
 * AES-GCM(position))} under a per-store secret, with the list's filter bound in as associated data: no lock key
 * or key digest can be recovered from it, and a cursor that was altered, forged, or issued for another filter or
 * by another store is rejected ({@code invalid_lease_request}, a 400-class result). The position is whatever the
 * store resumes after (the Redis store: a key digest; the reference store: a lock key).
 *
 * <p>Stores that serve the same program from several processes pass the same secret so that a cursor issued by
 * one is accepted by another; the default secret is random per store.
 */
public final class ListCursors {

	private static final byte VERSION = 2;

	private static final int NONCE_BYTES = 12;

	private static final int TAG_BITS = 128;

	private static final SecureRandom RANDOM = new SecureRandom();

	private final SecretKeySpec key;

	/** Cursors under a random secret (valid for this instance only). */
	public ListCursors() {
		this(randomSecret());
	}

	/**
	 * Cursors under {@code secret} (16, 24 or 32 bytes).
	 * @throws IllegalArgumentException for another length
	 */
	public ListCursors(byte[] secret) {
		if (secret.length != 16 && secret.length != 24 && secret.length != 32) {
			throw new IllegalArgumentException("cursor secret must be 16, 24 or 32 bytes");
		}
		this.key = new SecretKeySpec(secret.clone(), "AES");
	}

	private static byte[] randomSecret() {
		byte[] secret = new byte[32];
		RANDOM.nextBytes(secret);
		return secret;
	}

	/** The opaque cursor resuming after {@code position} for the list with the given filter. */
	public String encode(String position, ListFilter filter) {
		try {
			byte[] nonce = new byte[NONCE_BYTES];
			RANDOM.nextBytes(nonce);
			Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
			cipher.init(Cipher.ENCRYPT_MODE, this.key, new GCMParameterSpec(TAG_BITS, nonce));
			cipher.updateAAD(context(filter));
			byte[] sealed = cipher.doFinal(position.getBytes(StandardCharsets.UTF_8));
			ByteBuffer out = ByteBuffer.allocate(1 + NONCE_BYTES + sealed.length);
			out.put(VERSION).put(nonce).put(sealed);
			return Base64.getUrlEncoder().withoutPadding().encodeToString(out.array());
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("AES/GCM is required by the Java platform", ex);
		}
	}

	/**
	 * The position a cursor resumes after.
	 * @throws InvalidLeaseRequestException (field {@code cursor}) for a malformed, altered or foreign cursor
	 */
	public String decode(String cursor, ListFilter filter) {
		byte[] raw;
		try {
			raw = Base64.getUrlDecoder().decode(cursor);
		}
		catch (IllegalArgumentException ex) {
			throw malformed();
		}
		if (raw.length < 1 + NONCE_BYTES + TAG_BITS / 8 || raw[0] != VERSION) {
			throw malformed();
		}
		try {
			Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
			cipher.init(Cipher.DECRYPT_MODE, this.key, new GCMParameterSpec(TAG_BITS, raw, 1, NONCE_BYTES));
			cipher.updateAAD(context(filter));
			byte[] plain = cipher.doFinal(raw, 1 + NONCE_BYTES, raw.length - 1 - NONCE_BYTES);
			return new String(plain, StandardCharsets.UTF_8);
		}
		catch (GeneralSecurityException ex) {
			throw malformed();
		}
	}

	private static byte[] context(ListFilter filter) {
		StringBuilder text = new StringBuilder("c2\n").append(filter.scope().tenantId()).append('\n')
			.append(filter.scope().programId()).append('\n');
		if (filter instanceof ListFilter.ByOwner owner) {
			text.append("owner\n").append(owner.ownerPrincipalId());
		}
		else if (filter instanceof ListFilter.ByTarget target) {
			text.append("target\n").append(target.targetNamespace()).append('\n').append(target.targetId());
		}
		else {
			text.append("program");
		}
		return text.toString().getBytes(StandardCharsets.UTF_8);
	}

	private static InvalidLeaseRequestException malformed() {
		return new InvalidLeaseRequestException("cursor", "malformed");
	}

}
