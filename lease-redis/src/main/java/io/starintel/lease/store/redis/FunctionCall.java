package io.starintel.lease.store.redis;

import java.nio.charset.StandardCharsets;

import io.starintel.lease.store.redis.internal.LeaseLibrary;

/**
 * One call of a library function: the function, its keys and its arguments, built by one named builder per function
 * ({@link LeaseArguments}, {@link AttachArguments}, {@link ProgramArguments}). Every call's first key is a key of its
 * program ({@code P{T}:...}).
 */
record FunctionCall(LeaseLibrary.Function function, byte[][] keys, byte[][] args) {

	/** The program's key base {@code P{T}:}, read from the first key. */
	String programBase() {
		String first = new String(this.keys[0], StandardCharsets.UTF_8);
		int end = first.indexOf("}:");
		return (end < 0) ? first : first.substring(0, end + 2);
	}

}
