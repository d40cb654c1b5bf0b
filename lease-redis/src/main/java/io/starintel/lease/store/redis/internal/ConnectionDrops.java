package io.starintel.lease.store.redis.internal;

import java.net.SocketAddress;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import org.jspecify.annotations.Nullable;

/**
 * The drops and reconnections of a client's connections, so that a replica acknowledgement is taken only from the
 * connection incarnation that made the change it covers.
 *
 * <p>Why: Lettuce reconnects a dropped connection by itself and sends the commands that had not been answered yet
 * again, on the new link (at-least-once). When a primary dies after a change ran there but before its {@code WAIT}
 * was answered, the {@code WAIT} goes again to wherever the connection reconnects: on Sentinel the promoted replica,
 * on a cluster the restarted node, and a replica there acknowledges it at once, although that node never had the
 * change. The executor marks the sequence before it sends a change and, once the replica wait answered, asks whether
 * that connection dropped or reconnected since: if so the acknowledgement proves nothing about the change and the
 * answer is outcome-unknown (a change that went out again with the wait ran on the new node, but which node decided
 * cannot be told apart either).
 *
 * <p>Cost on the call path: two reads of one counter; the per-connection map is read only when some connection of the
 * client dropped or connected during the call.
 */
final class ConnectionDrops implements RedisConnectionStateListener, AutoCloseable {

	private final AtomicLong sequence = new AtomicLong();

	/** The sequence number of each connection's last drop or (re)connection; weak keys: closed connections go. */
	private final Map<Object, Long> lastChange = Collections.synchronizedMap(new WeakHashMap<>());

	private final List<AbstractRedisClient> watched = new CopyOnWriteArrayList<>();

	/** Listens to the connections of {@code client} (once per client); {@link #close()} stops listening. */
	synchronized void watch(@Nullable AbstractRedisClient client) {
		if (client != null && !this.watched.contains(client)) {
			client.addListener(this);
			this.watched.add(client);
		}
	}

	/** Whether {@code client}'s connections are listened to. */
	boolean watches(@Nullable AbstractRedisClient client) {
		return client != null && this.watched.contains(client);
	}

	/** The current sequence: taken before a change is sent on a connection. */
	long mark() {
		return this.sequence.get();
	}

	/**
	 * Whether {@code connection} (the stateful connection a route sent its commands on) dropped or connected again
	 * after {@code mark} was taken; {@code true} for no connection known.
	 */
	boolean changedSince(@Nullable Object connection, long mark) {
		if (connection == null) {
			return true;
		}
		if (this.sequence.get() == mark) {
			return false;
		}
		Long last = this.lastChange.get(connection);
		return last != null && last > mark;
	}

	@Override
	public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
		note(connection);
	}

	@Override
	public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress socketAddress) {
		note(connection);
	}

	private void note(RedisChannelHandler<?, ?> connection) {
		// the map's lock: a reader that saw the new sequence number finds the connection's entry too
		synchronized (this.lastChange) {
			this.lastChange.put(connection, this.sequence.incrementAndGet());
		}
	}

	@Override
	public synchronized void close() {
		for (AbstractRedisClient client : this.watched) {
			client.removeListener(this);
		}
		this.watched.clear();
	}

}
