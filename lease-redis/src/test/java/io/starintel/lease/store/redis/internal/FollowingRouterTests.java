package io.starintel.lease.store.redis.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The store routes on the client its connection factory holds now: a factory stopped and started again (a paused
 * test context) made a new client, and the router of the old one, whose connections the client's shutdown closed, is
 * abandoned, not closed again; at the store's close, a factory that no longer runs has closed them already too.
 */
class FollowingRouterTests {

	private static ClientResources resources;

	@BeforeAll
	static void resources() {
		resources = DefaultClientResources.builder().ioThreadPoolSize(1).computationThreadPoolSize(1).build();
	}

	@AfterAll
	static void release() {
		resources.shutdown();
	}

	/** A router that records how it ended. */
	static final class Recording implements Router {

		final AbstractRedisClient client;

		String ended = "open";

		Recording(AbstractRedisClient client) {
			this.client = client;
		}

		@Override
		public Route route(byte[] firstKey, long deadlineMs) throws ScriptFailure {
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "routed by " + this.client);
		}

		@Override
		public void close() {
			this.ended = "closed";
		}

		@Override
		public void abandon() {
			this.ended = "abandoned";
		}

	}

	private final AtomicReference<AbstractRedisClient> current = new AtomicReference<>();

	private final AtomicBoolean running = new AtomicBoolean(true);

	private final List<Recording> built = new ArrayList<>();

	private final FollowingRouter router = new FollowingRouter(this.current::get, (client) -> {
		Recording recording = new Recording(client);
		this.built.add(recording);
		return recording;
	}, this.running::get);

	private String routedBy() {
		try {
			this.router.route(new byte[0], System.currentTimeMillis() + 1_000);
			return "nothing";
		}
		catch (ScriptFailure ex) {
			return ex.getMessage();
		}
	}

	@Test
	void aNewClientOfTheFactoryGetsANewRouterAndTheOldOneIsAbandoned() {
		RedisClient first = RedisClient.create(resources);
		RedisClient second = RedisClient.create(resources);
		try {
			this.current.set(first);
			assertThat(routedBy()).contains(first.toString());
			assertThat(routedBy()).contains(first.toString());
			assertThat(this.built).hasSize(1);
			this.current.set(null); // stopped
			assertThatExceptionOfType(ScriptFailure.class)
				.isThrownBy(() -> this.router.route(new byte[0], System.currentTimeMillis() + 1_000))
				.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(ScriptFailure.Kind.NOT_SUBMITTED));
			this.current.set(second); // started again, with a new client
			assertThat(routedBy()).contains(second.toString());
			assertThat(this.built).hasSize(2);
			assertThat(this.built.get(0).ended).isEqualTo("abandoned");
			assertThat(this.built.get(1).ended).isEqualTo("open");
		}
		finally {
			first.shutdown();
			second.shutdown();
		}
	}

	@Test
	void atCloseTheConnectionsAreClosedOnlyWhileTheFactoryRuns() {
		RedisClient client = RedisClient.create(resources);
		try {
			this.current.set(client);
			routedBy();
			this.running.set(false);
			this.router.close();
			assertThat(this.built.get(0).ended).as("closed by the client's shutdown already").isEqualTo("abandoned");
			assertThat(routedBy()).contains("closed");

			FollowingRouter running = new FollowingRouter(() -> client, Recording::new, () -> true);
			List<Recording> one = new ArrayList<>();
			FollowingRouter recorded = new FollowingRouter(() -> client, (c) -> {
				Recording recording = new Recording(c);
				one.add(recording);
				return recording;
			}, () -> true);
			assertThatExceptionOfType(ScriptFailure.class)
				.isThrownBy(() -> recorded.route(new byte[0], System.currentTimeMillis() + 1_000));
			recorded.close();
			running.close();
			assertThat(one.get(0).ended).isEqualTo("closed");
		}
		finally {
			client.shutdown();
		}
	}

}
