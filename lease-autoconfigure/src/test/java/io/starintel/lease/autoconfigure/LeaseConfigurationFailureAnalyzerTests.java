package io.starintel.lease.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A real {@link SpringApplication} start with invalid {@code starintel.lease.*} configuration prints one "APPLICATION
 * FAILED TO START" report through {@link LeaseConfigurationFailureAnalyzer} (registered in
 * {@code META-INF/spring.factories}), listing every missing required property at once, with an action and no stack
 * trace.
 */
@ExtendWith(OutputCaptureExtension.class)
class LeaseConfigurationFailureAnalyzerTests {

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(LeaseStoreAutoConfiguration.class)
	static class App {

	}

	@Test
	void whenRequiredPropertiesAreMissingThenOneReportListsThemAll(CapturedOutput output) {
		SpringApplication application = new SpringApplication(App.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run("--starintel.lease.store=memory",
				"--spring.main.banner-mode=off", "--starintel.lease.renewal.margin=20m"));
		String out = output.toString();
		assertThat(out.split("APPLICATION FAILED TO START", -1)).hasSize(2);
		assertThat(out).contains("StarIntel target leases are not configured correctly (4 problems)")
			.contains("starintel.lease.tenant must be set")
			.contains("starintel.lease.program must be set")
			.contains("starintel.lease.owner.service-principal must be set")
			.contains("starintel.lease.renewal.margin (20m) must be below starintel.lease.ttl.maximum (10m)")
			.contains("Action:")
			.doesNotContain("\tat org.springframework");
	}

}
