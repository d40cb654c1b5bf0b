package io.starintel.lease.store.redis.internal;

import java.util.ArrayList;
import java.util.List;

/** Finds the primary of a call's slot and lends a connection to it ({@link Route}). */
interface Router {

	/**
	 * A connection to the primary serving the slot of {@code firstKey}.
	 * @throws ScriptFailure {@code NOT_SUBMITTED} when none is available before the deadline
	 */
	Route route(byte[] firstKey, long deadlineMs) throws ScriptFailure;

	/**
	 * The primary named by a {@code MOVED} reply ({@code host:port}), after the topology changed under a call; outside
	 * a cluster a redirection is not followed.
	 */
	default Route moved(String hostAndPort, long deadlineMs) throws ScriptFailure {
		throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "redirected outside a cluster");
	}

	/**
	 * A connection to every primary known now (the library's warm-up, the recovery scan of every node); outside a
	 * cluster the one primary, or none when it cannot be reached now.
	 */
	default List<Route> primaries(long deadlineMs) {
		List<Route> routes = new ArrayList<>(1);
		try {
			routes.add(route(new byte[0], deadlineMs));
		}
		catch (ScriptFailure ex) {
			// none now: the caller sees an empty list
		}
		return routes;
	}

	/** Closes the connections this router opened. */
	void close();

}
