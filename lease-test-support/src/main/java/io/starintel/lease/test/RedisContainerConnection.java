package io.starintel.lease.test;

import org.testcontainers.containers.GenericContainer;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * For Spring Boot test suites: import it ({@code @Import(RedisContainerConnection.class)}) and the application's
 * Redis is a Testcontainers container through Boot's {@code @ServiceConnection} when {@link TestServers} chose
 * containers for this run; otherwise this contributes nothing and the application's own
 * {@code spring.data.redis.url=${STARINTEL_REDIS_URL:redis://127.0.0.1:6379}} (the local server) applies.
 *
 * <p>The container is a bean of the application context, so Boot starts it with the context and stops it when the
 * context closes: one container per cached context (Boot closes every container bean with its context, so the
 * JVM-wide shared containers of {@link TestContainers} cannot be beans). The image is {@link TestContainers.Image#REDIS}.
 */
@TestConfiguration(proxyBeanMethods = false)
public class RedisContainerConnection {

	/** The Redis container, in containers mode only. */
	@Bean
	@ServiceConnection(name = "redis")
	@Conditional(ContainersMode.class)
	GenericContainer<?> redisContainer() {
		return TestContainers.redis(TestContainers.Image.REDIS);
	}

	/** Matches when {@link TestServers#mode()} is {@link TestServers.Mode#CONTAINERS}. */
	static final class ContainersMode implements Condition {

		@Override
		public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
			return TestServers.containers();
		}

	}

}
