package io.starintel.lease.it.redis;

/**
 * The recovery tests, on Valkey: every test of {@link RedisRecoveryTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyRecoveryTests extends RedisRecoveryTests {

}
