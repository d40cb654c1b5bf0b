package io.starintel.lease.test;

import org.junit.jupiter.api.Test;

import io.starintel.lease.store.LeaseStore;

/**
 * The public surface of the library ({@code lease-autoconfigure}, whose own tests cannot use this module; its list is
 * in its test-jar) and of this module.
 */
class PublicTypesTests {

	@Test
	void libraryPublicTypesAreExactlyTheListedOnes() {
		PublicTypes.assertListed(LeaseStore.class, "public-types/lease-autoconfigure.txt");
	}

	@Test
	void testSupportPublicTypesAreExactlyTheListedOnes() {
		PublicTypes.assertListed(PublicTypes.class, "public-types/lease-test-support.txt");
	}

}
