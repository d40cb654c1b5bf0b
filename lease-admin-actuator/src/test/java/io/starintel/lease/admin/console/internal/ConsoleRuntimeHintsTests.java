package io.starintel.lease.admin.console.internal;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.aot.hint.predicate.RuntimeHintsPredicates.resource;

/** Class-path resources read at run time are native-image resources ({@code META-INF/spring/aot.factories}). */
class ConsoleRuntimeHintsTests {

	@Test
	void registrarInAotFactoriesRegistersTheResources() {
		RuntimeHints hints = new RuntimeHints();
		SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)
			.forEach((registrar) -> registrar.registerHints(hints, getClass().getClassLoader()));
		assertThat(resource().forResource("io/starintel/lease/admin/console/index.html")).accepts(hints);
		assertThat(resource().forResource("io/starintel/lease/admin/console/login.html")).accepts(hints);
		assertThat(resource().forResource("io/starintel/lease/admin/console/console.js")).accepts(hints);
		assertThat(resource().forResource("io/starintel/lease/admin/console/console.css")).accepts(hints);
		assertThat(resource().forResource("io/starintel/lease/none.txt")).rejects(hints);
	}

}
