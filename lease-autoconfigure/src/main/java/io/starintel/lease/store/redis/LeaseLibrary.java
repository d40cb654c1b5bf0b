package io.starintel.lease.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The lease store's Redis/Valkey function library {@value #NAME}: {@code prelude.lua} (record codec) followed by
 * {@code lease.lua} (lease transitions), loaded once per server with {@code FUNCTION LOAD REPLACE} and reloaded when
 * a call answers "Function not found" (as EVALSHA falls back on NOSCRIPT), on every primary of a cluster. Helpers
 * are created once at load, not on every call. The name carries the storage encoding version, so two encodings
 * never replace each other's functions during a rolling upgrade.
 */
final class LeaseLibrary {

	/** The library name; also the prefix of every function name. */
	static final String NAME = "starintel_lease_v2";

	/** The library source sent with FUNCTION LOAD. */
	static final String CODE = "#!lua name=" + NAME + "\n" + read("prelude.lua") + "\n" + read("lease.lua");

	/** The library's functions, one per operation. */
	enum Function {

		ACQUIRE("acquire"), RENEW("renew"), RENEW_BATCH("renew_batch"), RELEASE("release"),
		ADMINISTER("administer"), AUTHORIZE("authorize"), INSPECT("inspect"),
		INSPECT_BY_LEASE_ID("inspect_by_lease_id"), RESOLVE("resolve"), LIST("list"), RECOVER("recover");

		private final String functionName;

		private final byte[] nameBytes;

		Function(String operation) {
			this.functionName = NAME + "_" + operation;
			this.nameBytes = this.functionName.getBytes(StandardCharsets.US_ASCII);
		}

		/** The name as sent (ASCII bytes). */
		byte[] nameBytes() {
			return this.nameBytes;
		}

		/** The name FCALL sends (safe to log). */
		String functionName() {
			return this.functionName;
		}

	}

	private LeaseLibrary() {
	}

	private static String read(String name) {
		try (InputStream in = LeaseLibrary.class.getResourceAsStream(name)) {
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
