package io.starintel.lease.architecture;

import java.util.List;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.jspecify.annotations.NullMarked;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the core plain Java and package dependencies pointing down (core <- store <- store.memory; core <-
 * context <- job, fence). docs/ARCHITECTURE.md draws the same graph.
 */
class ArchitectureTests {

	private final JavaClasses classes = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("io.starintel.lease");

	@Test
	void coreIsFreeOfSpringAndRedis() {
		noClasses().that().resideInAPackage("io.starintel.lease.core..")
			.should().dependOnClassesThat().resideInAnyPackage("org.springframework..", "io.lettuce..", "redis..")
			.check(this.classes);
	}

	@Test
	void coreDoesNotDependOnUpperLayers() {
		noClasses().that().resideInAPackage("io.starintel.lease.core..")
			.should().dependOnClassesThat().resideInAnyPackage("io.starintel.lease.store..", "io.starintel.lease.job..",
					"io.starintel.lease.fence..", "io.starintel.lease.service..", "io.starintel.lease.autoconfigure..")
			.check(this.classes);
	}

	@Test
	void storeSpiDoesNotDependOnItsImplementations() {
		noClasses().that().resideInAPackage("io.starintel.lease.store")
			.should().dependOnClassesThat().resideInAnyPackage("io.starintel.lease.store.memory..",
					"io.starintel.lease.store.redis..")
			.check(this.classes);
	}

	@Test
	void auditCoreIsFreeOfSpringAndRedis() {
		noClasses().that().resideInAPackage("io.starintel.lease.audit")
			.should().dependOnClassesThat().resideInAnyPackage("org.springframework..", "io.lettuce..")
			.check(this.classes);
	}

	@Test
	void serviceDependsOnlyOnCoreAndTheStoreSpi() {
		noClasses().that().resideInAPackage("io.starintel.lease.service..")
			.should().dependOnClassesThat().resideInAnyPackage("io.starintel.lease.job..", "io.starintel.lease.fence..",
					"io.starintel.lease.autoconfigure..", "io.starintel.lease.store.memory..",
					"io.starintel.lease.store.redis..", "org.springframework..")
			.check(this.classes);
	}

	@Test
	void auditDoesNotDependOnStoreImplementations() {
		noClasses().that().resideInAPackage("io.starintel.lease.audit..")
			.should().dependOnClassesThat().resideInAnyPackage("io.starintel.lease.store.memory..",
					"io.starintel.lease.store.redis..")
			.check(this.classes);
	}

	@Test
	void jobDoesNotDependOnAutoConfigurationOrStoreImplementations() {
		noClasses().that().resideInAPackage("io.starintel.lease.job..")
			.should().dependOnClassesThat().resideInAnyPackage("io.starintel.lease.autoconfigure..",
					"io.starintel.lease.store.memory..", "io.starintel.lease.store.redis..", "io.lettuce..")
			.check(this.classes);
	}

	@Test
	void fenceDoesNotDependOnJobs() {
		noClasses().that().resideInAPackage("io.starintel.lease.fence..")
			.should().dependOnClassesThat().resideInAPackage("io.starintel.lease.job..")
			.check(this.classes);
	}

	@Test
	void leaseContextDependsOnlyOnCore() {
		noClasses().that().resideInAPackage("io.starintel.lease.context..")
			.should().dependOnClassesThat().resideInAnyPackage("io.starintel.lease.store..", "io.starintel.lease.job..",
					"io.starintel.lease.fence..", "io.starintel.lease.service..", "io.starintel.lease.audit..",
					"io.starintel.lease.autoconfigure..", "org.springframework..")
			.check(this.classes);
	}

	@Test
	void everyPackageIsNullMarked() {
		List<String> packages = this.classes.stream().map(JavaClass::getPackageName).distinct().sorted().toList();
		assertThat(packages).isNotEmpty().allSatisfy((name) -> assertThat(nullMarked(name)).as(name).isTrue());
	}

	private static boolean nullMarked(String packageName) {
		try {
			return Class.forName(packageName + ".package-info").isAnnotationPresent(NullMarked.class);
		}
		catch (ClassNotFoundException ex) {
			return false;
		}
	}

}
