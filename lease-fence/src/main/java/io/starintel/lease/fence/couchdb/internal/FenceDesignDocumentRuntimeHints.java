package io.starintel.lease.fence.couchdb.internal;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The native-image resources of the fence design document: the {@code validate_doc_update} script
 * {@link FenceDesignDocument} installs. Registered in {@code META-INF/spring/aot.factories}.
 */
final class FenceDesignDocumentRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern("io/starintel/lease/fence/couchdb/*.js");
	}

}
