package io.starintel.lease.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The lease store's Lua scripts, one per operation. Each is {@code prelude.lua} followed by the operation's own file
 * (which documents its KEYS, ARGV and reply), loaded once from the classpath; {@link #sha()} is what EVALSHA sends.
 */
enum LeaseScript {

	ACQUIRE("acquire.lua"), RENEW("renew.lua"), RELEASE("release.lua"), ADMINISTER("administer.lua"),
	AUTHORIZE("authorize.lua"), INSPECT("inspect.lua"), INSPECT_BY_LEASE_ID("inspect_by_lease_id.lua"),
	LIST("list.lua"), RESOLVE("resolve.lua"), RECOVER("recover.lua");

	private final String fileName;

	private final String text;

	private final String sha;

	LeaseScript(String fileName) {
		this.fileName = fileName;
		this.text = read("prelude.lua") + "\n" + read(fileName);
		this.sha = sha1(this.text);
	}

	/** The full script text sent by the NOSCRIPT fallback. */
	String text() {
		return this.text;
	}

	/** SHA-1 of the text, as EVALSHA expects. */
	String sha() {
		return this.sha;
	}

	/** The operation's file name (safe to log). */
	String fileName() {
		return this.fileName;
	}

	private static String read(String name) {
		try (InputStream in = LeaseScript.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException("missing lease script " + name);
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String sha1(String text) {
		try {
			return HexFormat.of()
				.formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is required by the Java platform", ex);
		}
	}

}
