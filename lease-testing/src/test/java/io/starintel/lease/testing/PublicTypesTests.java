package io.starintel.lease.testing;

import org.junit.jupiter.api.Test;

import io.starintel.lease.test.PublicTypes;

/** The public surface of this module cannot grow silently: see {@code public-types/lease-testing.txt}. */
class PublicTypesTests {

	@Test
	void publicTypesAreExactlyTheListedOnes() {
		PublicTypes.assertListed(TargetLeaseTester.class, "public-types/lease-testing.txt");
	}

}
