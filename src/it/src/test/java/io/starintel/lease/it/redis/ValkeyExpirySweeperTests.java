package io.starintel.lease.it.redis;

/**
 * The expiry sweeper on Valkey: every test of {@link RedisExpirySweeperTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyExpirySweeperTests extends RedisExpirySweeperTests {

}
