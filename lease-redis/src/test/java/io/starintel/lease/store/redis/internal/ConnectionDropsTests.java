package io.starintel.lease.store.redis.internal;

import java.net.URI;
import java.time.Duration;

import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Against real Redis ({@code STARINTEL_REDIS_URL} or redis://127.0.0.1:6379): a connection the server drops, which
 * Lettuce reconnects by itself, is reported as changed since a mark taken before; another connection of the same
 * client is not; after {@link ConnectionDrops#close()} the client's connections are no longer listened to.
 */
class ConnectionDropsTests {

	private final RedisClient client = RedisClient.create(RedisURI.create(redisUri()));

	@AfterEach
	void shutDown() {
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	private static String redisUri() {
		String url = System.getenv("STARINTEL_REDIS_URL");
		return (url == null || url.isBlank()) ? "redis://127.0.0.1:6379" : URI.create(url).toString();
	}

	@Test
	void aConnectionTheServerDroppedIsReportedChangedAndAnotherIsNot() {
		try (ConnectionDrops drops = new ConnectionDrops()) {
			drops.watch(this.client);
			StatefulRedisConnection<String, String> dropped = this.client.connect();
			StatefulRedisConnection<String, String> other = this.client.connect();
			long mark = drops.mark();
			assertThat(drops.changedSince(dropped, mark)).as("before the drop").isFalse();
			dropAndAwaitReconnection(other, dropped);
			assertThat(drops.changedSince(dropped, mark)).as("the dropped connection, reconnected").isTrue();
			assertThat(drops.changedSince(other, mark)).as("another connection of the client").isFalse();
			assertThat(drops.changedSince(null, mark)).as("no connection known").isTrue();
			long later = drops.mark();
			assertThat(drops.changedSince(dropped, later)).as("a mark taken after the reconnection").isFalse();
		}
	}

	@Test
	void afterCloseTheClientsConnectionsAreNoLongerWatched() {
		ConnectionDrops drops = new ConnectionDrops();
		drops.watch(this.client);
		drops.watch(this.client);
		assertThat(drops.watches(this.client)).isTrue();
		drops.close();
		assertThat(drops.watches(this.client)).isFalse();
		StatefulRedisConnection<String, String> dropped = this.client.connect();
		StatefulRedisConnection<String, String> other = this.client.connect();
		long mark = drops.mark();
		dropAndAwaitReconnection(other, dropped);
		assertThat(drops.mark()).as("no event counted after close").isEqualTo(mark);
	}

	/** Kills {@code dropped} on the server (through {@code other}) and waits until Lettuce has reconnected it. */
	private static void dropAndAwaitReconnection(StatefulRedisConnection<String, String> other,
			StatefulRedisConnection<String, String> dropped) {
		long id = dropped.sync().clientId();
		assertThat(other.sync().clientKill(KillArgs.Builder.id(id))).as("connections killed").isEqualTo(1L);
		await("the dropped connection answers on a new link").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.ignoreExceptions()
			.until(() -> dropped.isOpen() && dropped.sync().clientId() != id);
	}

}
