package io.starintel.lease.worker.internal;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The native-image resources of the worker API: the OpenAPI description {@link WorkerController} serves from the
 * class path. Registered in {@code META-INF/spring/aot.factories}.
 */
final class WorkerApiRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern("io/starintel/lease/worker/internal/openapi.json");
	}

}
