package io.starintel.lease.architecture;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.jspecify.annotations.NullMarked;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.members;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the core plain Java and package dependencies pointing down (core <- store <- store.memory; core <-
 * context <- job, fence), and the public surface what users touch. docs/ARCHITECTURE.md draws the same graph
 * (sections "Packages of the library" and "Public API").
 */
class ArchitectureTests {

	/**
	 * The library modules' classes (this module's own main classes, the test kit, are not the library; nor are the
	 * test-jars, which a build of this module alone takes from the local repository instead of target/test-classes).
	 * Imported once for the class.
	 */
	private static final JavaClasses CLASSES = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.withImportOption((location) -> !location.contains("/lease-test-support/")
				&& !location.contains("lease-test-support-") && !location.contains("-tests.jar"))
		.importPackages("io.starintel.lease");

	@Test
	void coreIsFreeOfSpringAndRedis() {
		noClasses().that().resideInAPackage("io.starintel.lease.core..")
			.should().dependOnClassesThat().resideInAnyPackage("org.springframework..", "io.lettuce..", "redis..")
			.check(CLASSES);
	}

	@Test
	void coreDoesNotDependOnUpperLayers() {
		noClasses().that().resideInAPackage("io.starintel.lease.core..")
			.should().dependOnClassesThat().resideInAnyPackage("io.starintel.lease.store..", "io.starintel.lease.job..",
					"io.starintel.lease.fence..", "io.starintel.lease.service..", "io.starintel.lease.autoconfigure..")
			.check(CLASSES);
	}

	@Test
	void storeSpiDoesNotDependOnItsImplementations() {
		noClasses().that().resideInAPackage("io.starintel.lease.store")
			.should().dependOnClassesThat().resideInAnyPackage("io.starintel.lease.store.memory..",
					"io.starintel.lease.store.redis..")
			.check(CLASSES);
	}

	@Test
	void auditCoreIsFreeOfSpringAndRedis() {
		noClasses().that().resideInAPackage("io.starintel.lease.audit")
			.should().dependOnClassesThat().resideInAnyPackage("org.springframework..", "io.lettuce..")
			.check(CLASSES);
	}

	@Test
	void serviceDependsOnlyOnCoreAndTheStoreSpi() {
		noClasses().that().resideInAPackage("io.starintel.lease.service..")
			.should().dependOnClassesThat().resideInAnyPackage("io.starintel.lease.job..", "io.starintel.lease.fence..",
					"io.starintel.lease.autoconfigure..", "io.starintel.lease.store.memory..",
					"io.starintel.lease.store.redis..", "org.springframework..")
			.check(CLASSES);
	}

	@Test
	void auditDoesNotDependOnStoreImplementations() {
		noClasses().that().resideInAPackage("io.starintel.lease.audit..")
			.should().dependOnClassesThat().resideInAnyPackage("io.starintel.lease.store.memory..",
					"io.starintel.lease.store.redis..")
			.check(CLASSES);
	}

	@Test
	void jobDoesNotDependOnAutoConfigurationOrStoreImplementations() {
		noClasses().that().resideInAPackage("io.starintel.lease.job..")
			.should().dependOnClassesThat().resideInAnyPackage("io.starintel.lease.autoconfigure..",
					"io.starintel.lease.store.memory..", "io.starintel.lease.store.redis..", "io.lettuce..")
			.check(CLASSES);
	}

	@Test
	void fenceDoesNotDependOnJobs() {
		noClasses().that().resideInAPackage("io.starintel.lease.fence..")
			.should().dependOnClassesThat().resideInAPackage("io.starintel.lease.job..")
			.check(CLASSES);
	}

	@Test
	void leaseContextDependsOnlyOnCore() {
		noClasses().that().resideInAPackage("io.starintel.lease.context..")
			.should().dependOnClassesThat().resideInAnyPackage("io.starintel.lease.store..", "io.starintel.lease.job..",
					"io.starintel.lease.fence..", "io.starintel.lease.service..", "io.starintel.lease.audit..",
					"io.starintel.lease.autoconfigure..", "org.springframework..")
			.check(CLASSES);
	}

	@Test
	void everyPackageIsNullMarked() {
		List<String> packages = CLASSES.stream().map(JavaClass::getPackageName).distinct().sorted().toList();
		assertThat(packages).isNotEmpty().allSatisfy((name) -> assertThat(nullMarked(name)).as(name).isTrue());
	}

	@Test
	void publicTypesOutsideInternalPackagesAreListedAsApi() {
		Set<String> api = listed("api");
		classes().that().arePublic().and().areTopLevelClasses().and().resideOutsideOfPackage("..internal..")
			.should(new ArchCondition<>("be listed as 'api' in " + PUBLIC_TYPES
					+ " (else make it package-private, or move it to an internal package)") {
				@Override
				public void check(JavaClass type, ConditionEvents events) {
					boolean listed = api.contains(type.getName());
					events.add(new SimpleConditionEvent(type, listed, type.getName() + " is public outside an "
							+ "internal package but not listed as 'api' in " + PUBLIC_TYPES));
				}
			})
			.check(CLASSES);
	}

	/**
	 * An {@code internal} package belongs to the package it sits in: only that package's tree and the wiring
	 * ({@code ..autoconfigure..}) use it, so no library package reaches into another one's internals (as the fences once
	 * did into the Redis store's). The exceptions are lease-core's own shared internals ({@link #SHARED_INTERNALS}:
	 * identifiers, the token rule, cursors, the audit event builder), which every library module builds on.
	 */
	private static final Set<String> SHARED_INTERNALS = Set.of("io.starintel.lease.core.internal",
			"io.starintel.lease.audit.internal");

	@Test
	void internalPackagesAreUsedOnlyByTheirOwnPackageTreeAndTheWiring() {
		classes().that().resideInAPackage("..internal..")
			.should(new ArchCondition<>("be accessed only from their owner package's tree or the auto-configuration") {
				@Override
				public void check(JavaClass type, ConditionEvents events) {
					String name = type.getPackageName();
					String owner = name.substring(0, name.indexOf(".internal"));
					type.getAccessesToSelf().forEach((access) -> {
						String from = access.getOriginOwner().getPackageName();
						boolean allowed = from.equals(owner) || from.startsWith(owner + ".")
								|| from.contains(".autoconfigure") || SHARED_INTERNALS.contains(name);
						if (!allowed) {
							events.add(SimpleConditionEvent.violated(access, access.getDescription()));
						}
					});
				}
			})
			.check(CLASSES);
	}

	@Test
	void apiSignaturesDoNotExposeInternalTypes() {
		members().that().arePublic().and().areDeclaredInClassesThat().arePublic()
			.and().areDeclaredInClassesThat().resideOutsideOfPackage("..internal..")
			.should(new ArchCondition<>("not expose a type of an internal package") {
				@Override
				public void check(JavaMember member, ConditionEvents events) {
					Set<JavaClass> exposed = (member instanceof JavaField field) ? Set.of(field.getRawType())
							: (member instanceof JavaCodeUnit unit) ? signature(unit) : Set.of();
					for (JavaClass type : exposed) {
						if (("." + type.getPackageName() + ".").contains(".internal.")) {
							events.add(SimpleConditionEvent.violated(member,
									member.getFullName() + " exposes " + type.getName()));
						}
					}
				}
			})
			.check(CLASSES);
	}

	private static Set<JavaClass> signature(JavaCodeUnit unit) {
		Set<JavaClass> types = new HashSet<>(unit.getRawParameterTypes());
		types.add(unit.getRawReturnType());
		return types;
	}

	/** The library modules' lists of public types (PublicTypesTests checks each against its module). */
	private static final List<String> PUBLIC_TYPE_LISTS = List.of("public-types/lease-core.txt",
			"public-types/lease-redis.txt", "public-types/lease-jobs.txt", "public-types/lease-fence.txt",
			"public-types/lease-autoconfigure.txt");

	private static final String PUBLIC_TYPES = "public-types/<module>.txt";

	private static Set<String> listed(String kind) {
		Set<String> names = new HashSet<>();
		for (String list : PUBLIC_TYPE_LISTS) {
			try (InputStream in = Objects.requireNonNull(ArchitectureTests.class.getClassLoader()
				.getResourceAsStream(list), list);
					BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
				reader.lines()
					.map(String::trim)
					.filter((line) -> line.startsWith(kind + " "))
					.map((line) -> line.substring(kind.length() + 1).trim())
					.forEach(names::add);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return names;
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
