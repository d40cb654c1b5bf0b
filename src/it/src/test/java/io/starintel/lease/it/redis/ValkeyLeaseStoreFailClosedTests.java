package io.starintel.lease.it.redis;

/**
 * The fail-closed tests, on Valkey: every test of {@link RedisLeaseStoreFailClosedTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyLeaseStoreFailClosedTests extends RedisLeaseStoreFailClosedTests {

}
