package io.starintel.lease.it.redis;

/**
 * The sweep and limit rows, on Valkey: every test of {@link RedisLeaseStoreSweepConformanceTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyLeaseStoreSweepConformanceTests extends RedisLeaseStoreSweepConformanceTests {

}
