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
	 * cluster the one primary. {@link Primaries#all()} says whether every known primary could be reached: a node
	 * missed is never mistaken for a node with nothing on it.
	 */
	default Primaries primaries(long deadlineMs) {
		List<Route> routes = new ArrayList<>(1);
		try {
			routes.add(route(new byte[0], deadlineMs));
		}
		catch (ScriptFailure ex) {
			return new Primaries(routes, false);
		}
		return new Primaries(routes, true);
	}

	/** Connections to the primaries reached, and whether they are all the primaries known. */
	record Primaries(List<Route> routes, boolean all) {
	}

	/** Closes the connections this router opened. */
	void close();

	/**
	 * Ends this router without closing its connections: their client was shut down, which closed them (closing them
	 * again only makes Lettuce warn).
	 */
	default void abandon() {
		close();
	}

}
