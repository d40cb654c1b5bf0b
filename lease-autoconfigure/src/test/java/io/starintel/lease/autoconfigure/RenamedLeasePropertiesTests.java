package io.starintel.lease.autoconfigure;

import java.io.InputStream;
import java.net.URL;
import java.time.Duration;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import io.starintel.lease.job.CancellationMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * The flat keys of release 0.1 still bind for one release ({@link RenamedLeasePropertiesPostProcessor}), with a WARN
 * naming the replacement; the new key wins when both are set; the metadata declares each renamed key deprecated with
 * the same replacement as the post-processor's table; a bad value under an old key is reported under its new name.
 */
@ExtendWith(OutputCaptureExtension.class)
class RenamedLeasePropertiesTests {

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(LeaseStoreAutoConfiguration.class)
	static class App {

	}

	private static ConfigurableApplicationContext run(String... args) {
		SpringApplication application = new SpringApplication(App.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		String[] all = new String[args.length + 4];
		all[0] = "--starintel.lease.store=memory";
		all[1] = "--spring.main.banner-mode=off";
		all[2] = "--starintel.lease.tenant=tenant-main";
		all[3] = "--starintel.lease.program=program-a";
		System.arraycopy(args, 0, all, 4, args.length);
		return application.run(all);
	}

	@Test
	void anOldKeyBindsToItsReplacementWithAWarningAndTheNewKeyWins(CapturedOutput output) {
		try (ConfigurableApplicationContext context = run("--starintel.lease.service-principal=prn_old",
				"--starintel.lease.minimum-ttl=2s", "--starintel.lease.cancellation=none",
				"--starintel.lease.maximum-ttl=5m", "--starintel.lease.ttl.maximum=20m")) {
			LeaseProperties properties = context.getBean(LeaseProperties.class);
			assertThat(properties.getOwner().servicePrincipal()).isEqualTo("prn_old");
			assertThat(properties.getTtl().minimum()).isEqualTo(Duration.ofSeconds(2));
			assertThat(properties.getJob().cancellation()).isEqualTo(CancellationMode.NONE);
			assertThat(properties.getTtl().maximum()).isEqualTo(Duration.ofMinutes(20));
			assertThat(properties.policy().minimumTtl()).isEqualTo(Duration.ofSeconds(2));
		}
		assertThat(output).contains("Property starintel.lease.service-principal is deprecated")
			.contains("use starintel.lease.owner.service-principal")
			.contains("use starintel.lease.ttl.minimum")
			.doesNotContain("use starintel.lease.ttl.maximum ");
	}

	@Test
	void aBadValueUnderAnOldKeyIsReportedUnderItsNewName(CapturedOutput output) {
		assertThatException().isThrownBy(() -> run("--starintel.lease.service-principal=prn_old",
				"--starintel.lease.renewal-margin=20m"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("starintel.lease.renewal.margin (20m) must be below starintel.lease.ttl.maximum (10m)");
	}

	@Test
	void everyRenamedKeyIsDeprecatedInTheMetadataWithTheSameReplacement() throws Exception {
		Map<String, JsonNode> metadata = new HashMap<>();
		Enumeration<URL> files = getClass().getClassLoader().getResources("META-INF/spring-configuration-metadata.json");
		JsonMapper mapper = JsonMapper.builder().build();
		while (files.hasMoreElements()) {
			try (InputStream in = files.nextElement().openStream()) {
				for (JsonNode property : mapper.readTree(in).path("properties")) {
					metadata.put(property.path("name").asString(), property);
				}
			}
		}
		assertThat(RenamedLeasePropertiesPostProcessor.RENAMED).hasSize(19);
		RenamedLeasePropertiesPostProcessor.RENAMED.forEach((old, replacement) -> {
			assertThat(metadata).as(old).containsKey(old);
			assertThat(metadata.get(old).path("deprecation").path("replacement").asString()).as(old)
				.isEqualTo(replacement);
			assertThat(metadata).as(replacement).containsKey(replacement);
			assertThat(metadata.get(replacement).has("deprecation")).as(replacement).isFalse();
		});
	}

}
