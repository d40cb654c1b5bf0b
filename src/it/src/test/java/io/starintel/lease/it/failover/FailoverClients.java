package io.starintel.lease.it.failover;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Started Spring Data Redis connection factories that follow a promotion at once: Lettuce reconnects every 100 ms
 * (not with its default exponential back-off up to 30 s); on Sentinel each reconnect asks the sentinels for the
 * current master (and Sentinel disconnects the clients of a demoted master), on a cluster the topology is refreshed
 * every second and on every MOVED, ASK, reconnect and unknown node.
 */
public final class FailoverClients {

	private FailoverClients() {
	}

	/** A factory on Sentinel ({@link RedisSentinelConfiguration}). */
	public static Client sentinel(String masterName, List<Integer> sentinelPorts) {
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration().master(masterName);
		sentinelPorts.forEach((port) -> configuration.sentinel("127.0.0.1", port));
		return start(configuration, ClientOptions.builder().build());
	}

	/** A factory on a cluster ({@link RedisClusterConfiguration}). */
	public static Client cluster(List<String> nodeAddresses) {
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enablePeriodicRefresh(Duration.ofSeconds(1))
			.enableAllAdaptiveRefreshTriggers()
			.adaptiveRefreshTriggersTimeout(Duration.ofMillis(200))
			.dynamicRefreshSources(true)
			.build();
		return start(new RedisClusterConfiguration(nodeAddresses),
				ClusterClientOptions.builder().topologyRefreshOptions(refresh).build());
	}

	/**
	 * A factory on a cluster with Lettuce's default cluster options, as Spring Boot configures them unless
	 * {@code spring.data.redis.lettuce.cluster.refresh.*} is set: no periodic and no adaptive topology refresh.
	 */
	public static Client clusterWithoutTopologyRefresh(List<String> nodeAddresses) {
		return start(new RedisClusterConfiguration(nodeAddresses), ClusterClientOptions.builder().build());
	}

	/** A factory on one server (a primary that does not move). */
	public static Client standalone(int port) {
		return start(new RedisStandaloneConfiguration("127.0.0.1", port), ClientOptions.builder().build());
	}

	private static Client start(RedisConfiguration configuration, ClientOptions options) {
		ClientResources resources = ClientResources.builder()
			.reconnectDelay(Delay.constant(Duration.ofMillis(100)))
			.build();
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.clientResources(resources)
			.clientOptions(options)
			.commandTimeout(Duration.ofSeconds(10))
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration, client);
		factory.afterPropertiesSet();
		factory.start();
		return new Client(factory, resources);
	}

	/** A started factory and the client resources it runs on; closing destroys both. */
	public record Client(LettuceConnectionFactory factory, ClientResources resources) implements AutoCloseable {

		@Override
		public void close() {
			this.factory.destroy();
			this.resources.shutdown(0, 2, java.util.concurrent.TimeUnit.SECONDS);
		}

	}

}
