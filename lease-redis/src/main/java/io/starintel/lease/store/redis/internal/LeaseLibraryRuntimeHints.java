package io.starintel.lease.store.redis.internal;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The native-image resources of the lease function library: the Lua files {@link LeaseLibrary} reads from the class
 * path. Registered in {@code META-INF/spring/aot.factories}.
 */
final class LeaseLibraryRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern("io/starintel/lease/store/redis/*.lua");
	}

}
