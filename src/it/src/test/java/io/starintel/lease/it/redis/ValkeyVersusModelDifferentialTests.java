package io.starintel.lease.it.redis;

/**
 * The differential test against the in-memory model, on Valkey: every test of
 * {@link RedisVersusModelDifferentialTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyVersusModelDifferentialTests extends RedisVersusModelDifferentialTests {

}
