package io.starintel.lease.it.redis;

/**
 * The v2 → v3 storage upgrade tests, on Valkey: every test of {@link RedisStorageUpgradeTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyStorageUpgradeTests extends RedisStorageUpgradeTests {

}
