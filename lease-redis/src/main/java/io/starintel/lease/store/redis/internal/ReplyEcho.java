package io.starintel.lease.store.redis.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The echo of one library function call: a value unique to the call within this process, sent as the call's last
 * argument and returned by the library's wrapper ({@code register} in {@code prelude.lua}) as the reply's last
 * element. Redis answers the commands of a connection in order and the client pairs them in order, so a reply lost on
 * the way (a middlebox that drops it and passes the rest) hands every later reply to the call before it: the echo
 * shows such a reply for what it is, where the reply itself (a fresh acquire's is a code, a time and a token) would
 * read as a valid answer to the wrong call.
 */
final class ReplyEcho {

	private static final AtomicLong NEXT = new AtomicLong();

	private ReplyEcho() {
	}

	/** A fresh echo (a short decimal text: the process's call count). */
	static byte[] next() {
		return Long.toString(NEXT.incrementAndGet(), 36).getBytes(StandardCharsets.US_ASCII);
	}

	/**
	 * Takes the echo off the end of {@code reply}; {@code false} (and {@code reply} left as it is) when the reply does
	 * not end with {@code echo}: it answered another call.
	 */
	static boolean strip(List<Object> reply, byte[] echo) {
		int last = reply.size() - 1;
		if (last < 0 || !(reply.get(last) instanceof byte[] bytes) || !Arrays.equals(bytes, echo)) {
			return false;
		}
		reply.remove(last);
		return true;
	}

}
