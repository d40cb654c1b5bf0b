package io.starintel.lease.audit;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The audit package is plain Java; only its {@code redis} and {@code spring} sinks touch Spring, and no audit class
 * depends on a store implementation.
 */
class AuditArchitectureTests {

	private final JavaClasses classes = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("io.starintel.lease.audit");

	@Test
	void auditCoreIsFreeOfSpringAndRedis() {
		noClasses().that().resideInAPackage("io.starintel.lease.audit")
			.should().dependOnClassesThat().resideInAnyPackage("org.springframework..", "io.lettuce..")
			.check(this.classes);
	}

	@Test
	void auditDoesNotDependOnStoreImplementations() {
		noClasses().that().resideInAPackage("io.starintel.lease.audit..")
			.should().dependOnClassesThat().resideInAnyPackage("io.starintel.lease.store.memory..",
					"io.starintel.lease.store.redis..")
			.check(this.classes);
	}

}
