package io.starintel.lease.admin.console.internal;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The native-image resources of the admin console: the pages, script and style {@link ConsolePages} serves from the
 * class path. Registered in {@code META-INF/spring/aot.factories}.
 */
final class ConsoleRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(ConsolePages.RESOURCES + "*");
	}

}
