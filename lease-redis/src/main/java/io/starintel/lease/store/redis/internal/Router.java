package io.starintel.lease.store.redis.internal;

import java.util.List;

/** Finds the primary of a call's slot and lends a connection to it ({@link Route}). */
interface Router {

	/**
	 * A connection to the primary serving the slot of {@code firstKey}.
	 * @throws ScriptFailure {@code NOT_SUBMITTED} when none is available before the deadline
	 */
	Route route(byte[] firstKey, long deadlineMs) throws ScriptFailure;

	/** The primary named by a {@code MOVED} reply ({@code host:port}), after the topology changed under a call. */
	Route moved(String hostAndPort, long deadlineMs) throws ScriptFailure;

	/** A connection to every primary known now (the library's warm-up, the recovery scan of every node). */
	List<Route> primaries(long deadlineMs);

	/** Closes the connections this router opened. */
	void close();

}
