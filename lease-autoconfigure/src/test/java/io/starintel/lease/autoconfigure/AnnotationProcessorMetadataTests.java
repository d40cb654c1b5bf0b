package io.starintel.lease.autoconfigure;

import java.io.InputStream;
import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.autoconfigure.AutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The annotation processors declared in the compiler plugin ran: spring-boot-autoconfigure-processor's metadata names
 * every registered auto-configuration with its class conditions, and spring-boot-configuration-processor's metadata
 * exists ({@link ConfigurationMetadataTests} checks its keys).
 */
class AnnotationProcessorMetadataTests {

	@Test
	void autoConfigurationMetadataListsEveryRegisteredAutoConfiguration() throws Exception {
		Properties metadata = new Properties();
		try (InputStream in = getClass().getClassLoader()
			.getResourceAsStream("META-INF/spring-autoconfigure-metadata.properties")) {
			assertThat(in).as("spring-autoconfigure-metadata.properties").isNotNull();
			metadata.load(in);
		}
		List<String> registered = ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader())
			.getCandidates()
			.stream()
			.filter((name) -> name.startsWith("io.starintel.lease.autoconfigure."))
			.toList();
		assertThat(registered).isNotEmpty();
		assertThat(metadata.stringPropertyNames()).containsAll(registered);
		assertThat(metadata.getProperty(
				"io.starintel.lease.autoconfigure.couchdb.LeaseCouchDbAutoConfiguration.ConditionalOnClass"))
			.contains("org.ektorp.CouchDbInstance");
		assertThat(getClass().getClassLoader().getResource("META-INF/spring-configuration-metadata.json")).isNotNull();
	}

}
