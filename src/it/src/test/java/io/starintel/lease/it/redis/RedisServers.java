package io.starintel.lease.it.redis;

import java.net.URI;
import java.time.Duration;

import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.it.ServiceEnvironment;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.redis.RedisLeaseStore;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Connection factories for the real Redis the integration suites use: {@code STARINTEL_REDIS_URL} or
 * {@code redis://127.0.0.1:6379}. No Docker engine here, so no Testcontainers: the local server started by
 * {@code scripts/services.sh} is the backend.
 */
public final class RedisServers {

	/** The policy the suites use: TTLs from 100 ms so that expiry can be shown in seconds. */
	public static final LeasePolicy POLICY = LeasePolicy.defaults()
		.withTtlBounds(Duration.ofMillis(100), Duration.ofMinutes(10));

	private RedisServers() {
	}

	/** The shared server's URI. */
	public static URI uri() {
		return URI.create(ServiceEnvironment.env("STARINTEL_REDIS_URL", "redis://127.0.0.1:6379"));
	}

	/** A started factory for the shared server. */
	public static LettuceConnectionFactory factory() {
		URI uri = uri();
		return factory(uri.getHost(), uri.getPort());
	}

	/** A started factory for a server on a given host and port. */
	public static LettuceConnectionFactory factory(String host, int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/** A Redis store on a factory with the suites' policy. */
	public static RedisLeaseStore store(LettuceConnectionFactory factory) {
		return new RedisLeaseStore(factory, POLICY, LeaseAlerts.LOG);
	}

}
