package io.starintel.lease.it.redis;

/**
 * The race-history test, on Valkey: every test of {@link RedisLeaseRaceHistoryTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyLeaseRaceHistoryTests extends RedisLeaseRaceHistoryTests {

}
