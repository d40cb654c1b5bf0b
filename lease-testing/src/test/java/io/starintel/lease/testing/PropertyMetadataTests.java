package io.starintel.lease.testing;

import java.io.InputStream;
import java.util.List;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import io.starintel.lease.testing.internal.CouchDbPropertySource;
import io.starintel.lease.testing.internal.LeaseTestModes;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The properties the test kit reads or supplies are described in the jar's configuration metadata (an IDE completes
 * and documents them like the starter's), each with a description, and the store's values are hinted.
 */
class PropertyMetadataTests {

	@Test
	void everyPropertyOfTheKitIsDescribed() throws Exception {
		JsonNode metadata;
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(in).as("META-INF/spring-configuration-metadata.json in lease-testing").isNotNull();
			metadata = JsonMapper.builder().build().readTree(in);
		}
		List<String> names = metadata.path("properties").valueStream().map((p) -> p.path("name").asString()).toList();
		assertThat(names).contains(LeaseTestModes.TEST_STORE_PROPERTY);
		for (String key : List.of("url", "base-url", "username", "password")) {
			assertThat(names).contains(CouchDbPropertySource.PREFIX + key);
		}
		assertThat(metadata.path("properties").valueStream())
			.allSatisfy((p) -> assertThat(p.path("description").asString()).as(p.path("name").asString()).isNotBlank());
		assertThat(metadata.path("hints").get(0).path("values").valueStream().map((v) -> v.path("value").asString()))
			.containsExactly("auto", "memory", "redis");
	}

}
