package io.starintel.lease.store.redis.internal;

import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

import io.lettuce.core.AbstractRedisClient;
import org.jspecify.annotations.Nullable;

/**
 * The router of the client the application's Lettuce connection factory holds now. A factory that is stopped shuts its
 * client down (and every connection opened from it); started again, it makes a new client. Spring's test context cache
 * does that to a cached context while another one runs. This router notices a new client at the next call and routes
 * on a router of that client from then on; while the factory is stopped nothing is sent ({@code NOT_SUBMITTED}). A
 * router whose client was shut down is abandoned, not closed: its connections are closed already, and closing them
 * again only makes Lettuce warn.
 */
final class FollowingRouter implements Router {

	private final Supplier<@Nullable AbstractRedisClient> currentClient;

	private final Function<AbstractRedisClient, Router> routerOf;

	private final Supplier<Boolean> running;

	private @Nullable AbstractRedisClient client;

	private @Nullable Router router;

	private boolean closed;

	/**
	 * @param currentClient the factory's client now, or {@code null} while it is not started
	 * @param routerOf a router on one client
	 * @param running whether the factory runs (its client, and the connections opened from it, are open)
	 */
	FollowingRouter(Supplier<@Nullable AbstractRedisClient> currentClient,
			Function<AbstractRedisClient, Router> routerOf, Supplier<Boolean> running) {
		this.currentClient = currentClient;
		this.routerOf = routerOf;
		this.running = running;
	}

	@Override
	public Route route(byte[] firstKey, long deadlineMs) throws ScriptFailure {
		return current().route(firstKey, deadlineMs);
	}

	@Override
	public Route moved(String hostAndPort, long deadlineMs) throws ScriptFailure {
		return current().moved(hostAndPort, deadlineMs);
	}

	@Override
	public Primaries primaries(long deadlineMs) {
		try {
			return current().primaries(deadlineMs);
		}
		catch (ScriptFailure ex) {
			return new Primaries(List.of(), false);
		}
	}

	/** The router of the factory's client now (a new one when the factory made a new client). */
	private Router current() throws ScriptFailure {
		AbstractRedisClient now = this.currentClient.get();
		synchronized (this) {
			if (this.closed) {
				throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "the lease store is closed");
			}
			if (now == null) {
				throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "the connection factory is not running");
			}
			if (now != this.client || this.router == null) {
				Router previous = this.router;
				this.router = this.routerOf.apply(now);
				this.client = now;
				if (previous != null) {
					previous.abandon();
				}
			}
			return this.router;
		}
	}

	@Override
	public synchronized void close() {
		this.closed = true;
		if (this.router != null) {
			if (Boolean.TRUE.equals(this.running.get())) {
				this.router.close();
			}
			else {
				this.router.abandon();
			}
		}
	}

	@Override
	public void abandon() {
		close();
	}

}
