package io.starintel.lease.it.redis;

/**
 * The registry of programs, the sweep claim and the next due time on Valkey: every test of
 * {@link RedisSweepSharingTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeySweepSharingTests extends RedisSweepSharingTests {

}
