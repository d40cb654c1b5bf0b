package io.starintel.lease.http.internal;

import org.junit.jupiter.api.Test;

import io.starintel.lease.test.PublicTypes;

/** The public surface of this module cannot grow silently: see {@code public-types/lease-http-support.txt}. */
class PublicTypesTests {

	@Test
	void publicTypesAreExactlyTheListedOnes() {
		PublicTypes.assertListed(StrictJson.class, "public-types/lease-http-support.txt");
	}

}
