package io.starintel.lease.worker;

import org.junit.jupiter.api.Test;

import io.starintel.lease.test.PublicTypes;

/** The public surface of this module cannot grow silently: see {@code public-types/lease-worker-http.txt}. */
class PublicTypesTests {

	@Test
	void publicTypesAreExactlyTheListedOnes() {
		PublicTypes.assertListed(WorkerHttpProperties.class, "public-types/lease-worker-http.txt");
	}

}
