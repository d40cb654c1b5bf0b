package io.starintel.lease.autoconfigure;

import java.util.List;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.starintel.lease.core.LeaseConfigurationException;

/**
 * Contract: the Redis lease store runs on Lettuce only (Redis Functions over connections it opens from the Lettuce
 * client). An application whose {@link RedisConnectionFactory} is Jedis's, Redisson's or any other client's fails at
 * start-up, naming the factory class and the fix, instead of starting and answering
 * {@code lease_backend_unavailable} to every call.
 */
final class RedisClientCheck {

	/** Spring Data Redis's Lettuce factory, by name: Lettuce itself may be absent from the class path. */
	static final String LETTUCE_FACTORY = "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory";

	private RedisClientCheck() {
	}

	/**
	 * Throws a {@link LeaseConfigurationException} (reported by {@link LeaseConfigurationFailureAnalyzer}) unless the
	 * factory is Spring Data Redis's {@code LettuceConnectionFactory} or a subclass of it.
	 */
	static void requireLettuce(RedisConnectionFactory connectionFactory) {
		if (isLettuce(connectionFactory.getClass())) {
			return;
		}
		String type = connectionFactory.getClass().getName();
		throw new LeaseConfigurationException(List.of(new LeaseConfigurationException.Problem("RedisConnectionFactory",
				"(" + type + ") is not Lettuce's: the Redis lease store runs on Lettuce only (Redis Functions over "
						+ "its own Lettuce connections) and would answer lease_backend_unavailable to every call")),
				"Use Lettuce for Redis: depend on io.lettuce:lettuce-core (spring-boot-starter-data-redis brings it), "
						+ "exclude redis.clients:jedis (or Redisson) or set spring.data.redis.client-type=lettuce; "
						+ "or set starintel.lease.store=memory (single instance only); "
						+ "or declare your own LeaseStore bean.");
	}

	private static boolean isLettuce(Class<?> type) {
		for (Class<?> candidate = type; candidate != null; candidate = candidate.getSuperclass()) {
			if (LETTUCE_FACTORY.equals(candidate.getName())) {
				return true;
			}
		}
		return false;
	}

}
