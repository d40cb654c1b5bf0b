package io.starintel.lease.admin;

import org.junit.jupiter.api.Test;

import io.starintel.lease.test.PublicTypes;

/** The public surface of this module cannot grow silently: see {@code public-types/lease-admin-actuator.txt}. */
class PublicTypesTests {

	@Test
	void publicTypesAreExactlyTheListedOnes() {
		PublicTypes.assertListed(AdminProperties.class, "public-types/lease-admin-actuator.txt");
	}

}
