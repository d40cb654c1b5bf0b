package io.starintel.lease.it.failover;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ports the failover fixtures may use, and nothing else: server nodes in {@code 7100..7199} (a cluster node's bus
 * port is {@code +10000}, so {@code 17100..17199} must be free too) and sentinels in {@code 26379..26399}. A port is
 * handed out only when it (and its bus port) can be bound on loopback right now and this JVM has not handed it out
 * already; fixtures {@link #release(int...)} theirs when they close.
 */
final class FailoverPorts {

	static final int NODE_FIRST = 7100;

	static final int NODE_LAST = 7199;

	static final int SENTINEL_FIRST = 26379;

	static final int SENTINEL_LAST = 26399;

	private static final int BUS_OFFSET = 10000;

	private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

	private FailoverPorts() {
	}

	/** One free node port (with a free bus port). */
	static int node() {
		return nodes(1);
	}

	/** The first of {@code count} consecutive free node ports (each with a free bus port), all handed out. */
	static synchronized int nodes(int count) {
		for (int first = NODE_FIRST; first + count - 1 <= NODE_LAST; first++) {
			boolean free = true;
			for (int port = first; port < first + count && free; port++) {
				free = !HANDED_OUT.contains(port) && bindable(port) && bindable(port + BUS_OFFSET);
			}
			if (free) {
				for (int port = first; port < first + count; port++) {
					HANDED_OUT.add(port);
				}
				return first;
			}
		}
		throw new IllegalStateException("no " + count + " free consecutive ports in " + NODE_FIRST + ".." + NODE_LAST
				+ " (with bus ports +" + BUS_OFFSET + ")");
	}

	/** One free sentinel port. */
	static synchronized int sentinel() {
		for (int port = SENTINEL_FIRST; port <= SENTINEL_LAST; port++) {
			if (!HANDED_OUT.contains(port) && bindable(port)) {
				HANDED_OUT.add(port);
				return port;
			}
		}
		throw new IllegalStateException("no free sentinel port in " + SENTINEL_FIRST + ".." + SENTINEL_LAST);
	}

	/** Gives ports back (their servers are gone). */
	static void release(int... ports) {
		for (int port : ports) {
			HANDED_OUT.remove(port);
		}
	}

	private static boolean bindable(int port) {
		try (ServerSocket socket = new ServerSocket()) {
			socket.setReuseAddress(true);
			socket.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
