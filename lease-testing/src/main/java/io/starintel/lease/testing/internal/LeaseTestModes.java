package io.starintel.lease.testing.internal;

import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Decides which store a lease test runs on, in this order:
 * <ol>
 * <li>{@code starintel.lease.test.store} ({@code @AutoConfigureLeaseTest(store = ...)}): {@code memory} or
 * {@code redis};</li>
 * <li>{@code starintel.lease.store}, when the application sets it;</li>
 * <li>a Redis {@code ConnectionDetails} bean (a {@code @ServiceConnection} Redis or Valkey container, a Docker
 * Compose service, or the application's own): Redis;</li>
 * <li>any of {@code spring.data.redis.url|host|port|cluster.nodes|sentinel.master}: Redis;</li>
 * <li>otherwise the in-memory store.</li>
 * </ol>
 */
public final class LeaseTestModes {

	/** The property {@code @AutoConfigureLeaseTest(store = ...)} maps to. */
	public static final String TEST_STORE_PROPERTY = "starintel.lease.test.store";

	private static final String STORE_PROPERTY = "starintel.lease.store";

	private static final String REDIS_DETAILS = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";

	private static final List<String> REDIS_PROPERTIES = List.of("spring.data.redis.url", "spring.data.redis.host",
			"spring.data.redis.port", "spring.data.redis.cluster.nodes", "spring.data.redis.sentinel.master");

	private LeaseTestModes() {
	}

	/** The decision and why, for the condition report and the start-up log line. */
	public record Decision(boolean memory, String why) {
	}

	public static Decision decide(Environment environment, @Nullable ListableBeanFactory beans) {
		String forced = normalized(environment.getProperty(TEST_STORE_PROPERTY));
		String configured = normalized(environment.getProperty(STORE_PROPERTY));
		if ("memory".equals(forced)) {
			return new Decision(true, TEST_STORE_PROPERTY + "=memory");
		}
		if ("redis".equals(forced)) {
			if ("memory".equals(configured)) {
				throw new IllegalStateException("@AutoConfigureLeaseTest(store = REDIS) (" + TEST_STORE_PROPERTY
						+ "=redis) contradicts " + STORE_PROPERTY + "=memory: set " + STORE_PROPERTY
						+ "=redis for this test, or remove one of them");
			}
			return new Decision(false, TEST_STORE_PROPERTY + "=redis");
		}
		if (forced != null && !"auto".equals(forced)) {
			throw new IllegalStateException(TEST_STORE_PROPERTY + " must be auto, memory or redis, not " + forced);
		}
		if (configured != null) {
			return new Decision("memory".equals(configured), STORE_PROPERTY + "=" + configured);
		}
		String details = redisConnectionDetails(beans);
		if (details != null) {
			return new Decision(false, "Redis connection details bean '" + details
					+ "' (a @ServiceConnection container, a Docker Compose service or the application's own)");
		}
		for (String property : REDIS_PROPERTIES) {
			if (environment.containsProperty(property)) {
				return new Decision(false, property + " is configured");
			}
		}
		return new Decision(true, "no Redis: no Redis connection details bean and no spring.data.redis.* endpoint");
	}

	private static @Nullable String redisConnectionDetails(@Nullable ListableBeanFactory beans) {
		if (beans == null || !ClassUtils.isPresent(REDIS_DETAILS, LeaseTestModes.class.getClassLoader())) {
			return null;
		}
		try {
			Class<?> type = ClassUtils.forName(REDIS_DETAILS, LeaseTestModes.class.getClassLoader());
			for (String name : beans.getBeanNamesForType(type, true, false)) {
				Class<?> actual = beans.getType(name, false);
				// Boot's own, from spring.data.redis.* (registered after the decision; seen when it is logged)
				if (actual == null || !actual.getName().endsWith(".PropertiesDataRedisConnectionDetails")) {
					return name;
				}
			}
			return null;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return null;
		}
	}

	private static @Nullable String normalized(@Nullable String value) {
		return (value == null || value.isBlank()) ? null : value.trim().toLowerCase(Locale.ROOT);
	}

}
