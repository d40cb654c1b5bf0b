package io.starintel.lease.autoconfigure;

import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.env.Environment;

import io.starintel.lease.core.LeaseConfigurationException;
import io.starintel.lease.service.LeaseService;

/**
 * Contract: an application with leased jobs has a lease store. Without one ({@code starintel.lease.store=redis}, the
 * default, and no {@code RedisConnectionFactory} bean, nor a {@code LeaseStore} bean of the application's) start-up
 * fails with one "APPLICATION FAILED TO START" report ({@link LeaseConfigurationFailureAnalyzer}) naming both options,
 * once every bean definition is known and before any bean is created: so also when an application bean that needs
 * what a store brings (the {@code FenceGuard}, which backs off without one, or the {@link LeaseService}) would be
 * created first and fail with a report that does not say why. Not ordered: it runs after the bean factory post
 * processors that add bean definitions (Spring's bean overrides included).
 */
final class LeaseStoreCheck implements BeanFactoryPostProcessor {

	static final String STORE_PROPERTY = "starintel.lease.store";

	private final Environment environment;

	LeaseStoreCheck(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		// the facade exists exactly when a LeaseStore bean does (LeaseAuditAutoConfiguration): the same test as
		// @ConditionalOnBean, without creating any bean
		if (beanFactory.getBeanNamesForType(LeaseService.class, true, false).length == 0) {
			throw noStore(this.environment.getProperty(STORE_PROPERTY));
		}
	}

	/**
	 * The failure of an application with leased jobs and no lease store.
	 * @param store the value of {@code starintel.lease.store} as configured (none: the default, {@code redis})
	 */
	static LeaseConfigurationException noStore(@Nullable String store) {
		String value = (store != null) ? store.trim().toLowerCase(Locale.ROOT) : "redis";
		String what = switch (value) {
			case "redis" -> "needs a RedisConnectionFactory bean, and there is none: no lease store, so no "
					+ "@TargetLeased job, FenceGuard or LeaseService";
			case "memory" -> "gave no lease store (is LeaseStoreAutoConfiguration excluded?): no @TargetLeased job, "
					+ "FenceGuard or LeaseService";
			default -> "must be redis or memory";
		};
		return new LeaseConfigurationException(
				List.of(new LeaseConfigurationException.Problem(STORE_PROPERTY, "(" + value + ") " + what)),
				"Configure Redis for the lease store: add spring-boot-starter-data-redis and set spring.data.redis.* "
						+ "(or declare a RedisConnectionFactory bean, Lettuce's); or set starintel.lease.store=memory "
						+ "for the single-JVM in-memory store; or declare your own LeaseStore bean.");
	}

}
