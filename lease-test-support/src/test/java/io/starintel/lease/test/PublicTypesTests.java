package io.starintel.lease.test;

import org.junit.jupiter.api.Test;

import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;

/**
 * The public surface of each library module (whose own tests cannot use this module, so their lists are checked here)
 * and of this module: one anchor class per module, one checked-in list per module.
 */
class PublicTypesTests {

	@Test
	void corePublicTypesAreExactlyTheListedOnes() {
		PublicTypes.assertListed(LeaseStore.class, "public-types/lease-core.txt");
	}

	@Test
	void redisPublicTypesAreExactlyTheListedOnes() {
		PublicTypes.assertListed(RedisLeaseStore.class, "public-types/lease-redis.txt");
	}

	@Test
	void jobsPublicTypesAreExactlyTheListedOnes() {
		PublicTypes.assertListed(LeaseService.class, "public-types/lease-jobs.txt");
	}

	@Test
	void fencePublicTypesAreExactlyTheListedOnes() {
		PublicTypes.assertListed(FenceGuard.class, "public-types/lease-fence.txt");
	}

	@Test
	void autoconfigurePublicTypesAreExactlyTheListedOnes() {
		PublicTypes.assertListed(LeaseStoreAutoConfiguration.class, "public-types/lease-autoconfigure.txt");
	}

	@Test
	void testSupportPublicTypesAreExactlyTheListedOnes() {
		PublicTypes.assertListed(PublicTypes.class, "public-types/lease-test-support.txt");
	}

}
