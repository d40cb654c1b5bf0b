package io.starintel.lease.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every ordering hint of this module's auto-configurations names a class that exists: a misspelt
 * {@code afterName} is silently ignored by Spring Boot and the ordering is then left to chance.
 */
class AutoConfigurationOrderingTests {

	@Test
	void everyAfterNameAndBeforeNameIsAnExistingClass() throws Exception {
		List<String> candidates = new ArrayList<>();
		ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).forEach(candidates::add);
		List<String> ours = candidates.stream().filter((name) -> name.startsWith("io.starintel.lease.")).toList();
		assertThat(ours).isNotEmpty();
		List<String> missing = new ArrayList<>();
		for (String name : ours) {
			AutoConfiguration annotation = Class.forName(name).getAnnotation(AutoConfiguration.class);
			assertThat(annotation).as(name).isNotNull();
			Stream.concat(Stream.of(annotation.afterName()), Stream.of(annotation.beforeName()))
				.filter((hint) -> !exists(hint))
				.forEach((hint) -> missing.add(name + " -> " + hint));
		}
		assertThat(missing).isEmpty();
	}

	private static boolean exists(String className) {
		try {
			Class.forName(className, false, AutoConfigurationOrderingTests.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException ex) {
			return false;
		}
	}

}
