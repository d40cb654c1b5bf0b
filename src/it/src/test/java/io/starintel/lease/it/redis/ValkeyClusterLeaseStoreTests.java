package io.starintel.lease.it.redis;

/**
 * The cluster tests (own 3-node cluster), on Valkey: every test of {@link RedisClusterLeaseStoreTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyClusterLeaseStoreTests extends RedisClusterLeaseStoreTests {

}
