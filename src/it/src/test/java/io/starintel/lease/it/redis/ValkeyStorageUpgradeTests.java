package io.starintel.lease.it.redis;

/**
 * The v1 → v2 storage upgrade tests, on Valkey: every test of {@link RedisStorageUpgradeTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyStorageUpgradeTests extends RedisStorageUpgradeTests {

}
