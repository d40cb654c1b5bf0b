package io.starintel.lease.fence;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * Keeps the fence packages below auto-configuration and independent of store implementations (except the Redis
 * key layout shared with the checkpoint script), keeps each integration in its own sub-package, and keeps each
 * {@code internal} sub-package free of a cycle with the API package beside it.
 */
class FenceArchitectureTests {

	private static final JavaClasses CLASSES = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("io.starintel.lease");

	@Test
	void fenceDoesNotDependOnAutoConfigurationOrTheMemoryStore() {
		noClasses().that().resideInAPackage("io.starintel.lease.fence..")
			.should().dependOnClassesThat().resideInAnyPackage("io.starintel.lease.autoconfigure..",
					"io.starintel.lease.store.memory..")
			.check(CLASSES);
	}

	@Test
	void fenceCoreIsFreeOfIntegrationLibraries() {
		noClasses().that().resideInAPackage("io.starintel.lease.fence")
			.should().dependOnClassesThat().resideInAnyPackage("org.ektorp..", "org.springframework.amqp..",
					"org.springframework.data.redis..", "io.starintel.lease.store.redis..")
			.check(CLASSES);
	}

	@Test
	void integrationsDoNotDependOnEachOther() {
		noClasses().that().resideInAPackage("io.starintel.lease.fence.couchdb..")
			.should().dependOnClassesThat().resideInAnyPackage("org.springframework.amqp..",
					"io.starintel.lease.fence.amqp..", "io.starintel.lease.fence.checkpoint..")
			.check(CLASSES);
		noClasses().that().resideInAPackage("io.starintel.lease.fence.amqp..")
			.should().dependOnClassesThat().resideInAnyPackage("org.ektorp..", "io.starintel.lease.fence.couchdb..",
					"io.starintel.lease.fence.checkpoint..")
			.check(CLASSES);
	}

	@Test
	void internalPackagesAndTheirApiPackagesHaveNoCycle() {
		noClasses().that().resideInAPackage("io.starintel.lease.fence.couchdb.internal")
			.should().dependOnClassesThat().resideInAPackage("io.starintel.lease.fence.couchdb")
			.check(CLASSES);
		noClasses().that().resideInAPackage("io.starintel.lease.fence.amqp")
			.should().dependOnClassesThat().resideInAPackage("io.starintel.lease.fence.amqp.internal")
			.check(CLASSES);
	}

}
