package io.starintel.lease.it.redis;

/**
 * Exactly one round trip per operation, on Valkey: every test of {@link RedisOneRoundTripTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyOneRoundTripTests extends RedisOneRoundTripTests {

}
