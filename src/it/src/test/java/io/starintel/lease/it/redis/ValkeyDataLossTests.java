package io.starintel.lease.it.redis;

/**
 * The data-loss test (own server restarted empty), on Valkey: every test of {@link RedisDataLossTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyDataLossTests extends RedisDataLossTests {

}
