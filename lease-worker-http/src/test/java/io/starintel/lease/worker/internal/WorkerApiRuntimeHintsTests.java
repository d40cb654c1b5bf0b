package io.starintel.lease.worker.internal;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/** The class-path resources read at run time are native-image resources, through {@code META-INF/spring/aot.factories}. */
class WorkerApiRuntimeHintsTests {

	@Test
	void registrarInAotFactoriesRegistersTheResources() {
		RuntimeHints hints = new RuntimeHints();
		SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)
			.forEach((registrar) -> registrar.registerHints(hints, getClass().getClassLoader()));
		assertThat(RuntimeHintsPredicates.resource().forResource("io/starintel/lease/worker/internal/openapi.json")).accepts(hints);
		assertThat(RuntimeHintsPredicates.resource().forResource("io/starintel/lease/none.txt")).rejects(hints);
	}

}
