package io.starintel.lease.store.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The lease store's Redis/Valkey function library {@link #NAME} (storage v3): {@code prelude.lua} (the shared rules:
 * time and deadline, key layout, record codec, identity hash and its conversion from storage v2, the epoch stamp)
 * followed by {@code lease.lua} (lease transitions), {@code attach.lua} (attached keys), {@code sweep.lua} (the
 * expiry sweeper) and {@code fence.lua} (fenced checkpoints, the consumer fence, CouchDB document marks), which use
 * the same identity hash, backend time, exact-holder check and high-water mark as the lease transitions (one home per
 * rule), loaded on each primary ahead of its first call and again when a call answers "Function not found". The name carries the storage encoding version and a digest of
 * the source ({@link #NAME}), so two encodings or two builds never replace each other's functions.
 */
public final class LeaseLibrary {

	/** The files of the library, in load order. */
	private static final String SOURCES = read("prelude.lua") + "\n" + read("lease.lua") + "\n" + read("attach.lua")
			+ "\n" + read("sweep.lua") + "\n" + read("fence.lua");

	/** The storage encoding's family name: every build's library name starts with it. */
	static final String FAMILY = "starintel_lease_v3";

	/**
	 * The library name; also the prefix of every function name. It carries the storage encoding version and a digest
	 * of the library's source, so two builds of the library never replace each other's functions: during a rolling
	 * upgrade (or beside a stale copy a server still holds) each process calls exactly the code it ships with, and a
	 * server that lacks it answers "function not found", which loads it.
	 */
	public static final String NAME = FAMILY + "_" + sourceDigest(SOURCES);

	/** The library source sent with FUNCTION LOAD (the files read {@code LIBRARY}, the name, to register). */
	static final String CODE = "#!lua name=" + NAME + "\nlocal LIBRARY = '" + NAME + "'\n" + SOURCES;

	/** The library's functions, one per operation. */
	public enum Function {

		ACQUIRE("acquire", true), RENEW("renew", true), RENEW_BATCH("renew_batch", true), RELEASE("release", true),
		ADMINISTER("administer", true), AUTHORIZE("authorize", true), INSPECT("inspect", false),
		INSPECT_BY_LEASE_ID("inspect_by_lease_id", false), RESOLVE("resolve", true), LIST("list", false),
		RECOVER("recover", true), ATTACH_PUT("attach_put", true), ATTACH_DELETE("attach_delete", true),
		ATTACH_GET("attach_get", false), ATTACH_LIST("attach_list", false), SWEEP("sweep", true),
		CHECKPOINT("checkpoint", true), CHECKPOINT_READ("checkpoint_read", false), CONSUME("consume", true),
		MARK_RAISE("mark_raise", true), MARK_READ("mark_read", false), BATCH("batch", true);

		private final String functionName;

		private final byte[] nameBytes;

		private final boolean changesState;

		private final String operation;

		Function(String operation, boolean changesState) {
			this.operation = operation;
			this.functionName = NAME + "_" + operation;
			this.nameBytes = this.functionName.getBytes(StandardCharsets.US_ASCII);
			this.changesState = changesState;
		}

		/**
		 * Whether a success of the function reports a change (or replays one: resolve), which the replicas must
		 * acknowledge before the store reports it.
		 */
		public boolean changesState() {
			return this.changesState;
		}

		/** The name as sent (ASCII bytes). */
		byte[] nameBytes() {
			return this.nameBytes;
		}

		/** The function's name inside the library (what a batch names its items by). */
		public String operation() {
			return this.operation;
		}

		/** The name FCALL sends (safe to log). */
		public String functionName() {
			return this.functionName;
		}

	}

	private LeaseLibrary() {
	}

	private static String sourceDigest(String source) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(source.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest, 0, 6);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is not available", ex);
		}
	}

	private static String read(String name) {
		try (InputStream in = LeaseLibrary.class.getResourceAsStream("/io/starintel/lease/store/redis/" + name)) {
			if (in == null) {
				throw new IllegalStateException("missing lease library file " + name);
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
