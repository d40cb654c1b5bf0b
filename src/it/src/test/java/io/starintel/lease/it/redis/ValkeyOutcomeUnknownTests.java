package io.starintel.lease.it.redis;

/**
 * The outcome-unknown tests (reply-dropping proxy), on Valkey: every test of {@link RedisOutcomeUnknownTests},
 * unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyOutcomeUnknownTests extends RedisOutcomeUnknownTests {

}
