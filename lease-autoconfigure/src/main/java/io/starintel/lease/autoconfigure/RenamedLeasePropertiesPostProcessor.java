package io.starintel.lease.autoconfigure;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.commons.logging.Log;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Keeps the flat {@code starintel.lease.*} keys of release 0.1 working for one release: each renamed key that is set
 * (in any property source, in any relaxed form) while its replacement is not is copied to the replacement, in a
 * property source of the lowest precedence, with one WARN line naming both keys. The same pairs are declared
 * deprecated, with their replacement, in {@code additional-spring-configuration-metadata.json} (IDEs and
 * {@code spring-boot-properties-migrator} show them); {@code RenamedLeasePropertiesTests} keeps the two in step.
 * Registered in {@code META-INF/spring.factories}; runs after the config data (application.yml) is loaded.
 */
final class RenamedLeasePropertiesPostProcessor implements EnvironmentPostProcessor, Ordered {

	/** Name of the property source holding the renamed values. */
	static final String SOURCE = "starintel.lease renamed properties";

	/** Each renamed key (release 0.1) and its replacement (docs/jobs.md, "Renamed properties"). */
	static final Map<String, String> RENAMED = renamed();

	private final Log logger;

	RenamedLeasePropertiesPostProcessor(DeferredLogFactory logs) {
		this.logger = logs.getLog(RenamedLeasePropertiesPostProcessor.class);
	}

	private static Map<String, String> renamed() {
		Map<String, String> renamed = new LinkedHashMap<>();
		String p = LeaseProperties.PREFIX;
		renamed.put(p + "service-principal", p + "owner.service-principal");
		renamed.put(p + "client-id", p + "owner.client-id");
		renamed.put(p + "credential-id", p + "owner.credential-id");
		renamed.put(p + "service-instance-id", p + "owner.service-instance-id");
		renamed.put(p + "minimum-ttl", p + "ttl.minimum");
		renamed.put(p + "maximum-ttl", p + "ttl.maximum");
		renamed.put(p + "maximum-lifetime", p + "ttl.maximum-lifetime");
		renamed.put(p + "operation-timeout", p + "request.timeout");
		renamed.put(p + "maximum-deadline", p + "request.maximum-deadline");
		renamed.put(p + "maximum-wait", p + "request.maximum-wait");
		renamed.put(p + "renewal-margin", p + "renewal.margin");
		renamed.put(p + "renewal-threads", p + "renewal.threads");
		renamed.put(p + "history-length", p + "history.length");
		renamed.put(p + "history-retention", p + "history.retention");
		renamed.put(p + "retry-window", p + "idempotency.retry-window");
		renamed.put(p + "maximum-page-size", p + "list.maximum-page-size");
		renamed.put(p + "list-cursor-secret", p + "list.cursor-secret");
		renamed.put(p + "clock-skew-bound", p + "fencing.clock-skew-bound");
		renamed.put(p + "cancellation", p + "job.cancellation");
		return Collections.unmodifiableMap(renamed);
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		Binder binder = Binder.get(environment);
		Map<String, Object> values = new LinkedHashMap<>();
		RENAMED.forEach((old, replacement) -> binder.bind(old, String.class).ifBound((value) -> {
			if (!binder.bind(replacement, String.class).isBound()) {
				values.put(replacement, value);
				this.logger.warn("Property " + old + " is deprecated and will be removed in the next release; "
						+ "use " + replacement + " (docs/jobs.md, \"Renamed properties\")");
			}
		}));
		if (!values.isEmpty()) {
			environment.getPropertySources().addLast(new MapPropertySource(SOURCE, values));
		}
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

}
