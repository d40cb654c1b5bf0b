package io.starintel.lease.it.redis;

/**
 * The conformance kit, on Valkey: every test of {@link RedisLeaseStoreConformanceTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyLeaseStoreConformanceTests extends RedisLeaseStoreConformanceTests {

}
