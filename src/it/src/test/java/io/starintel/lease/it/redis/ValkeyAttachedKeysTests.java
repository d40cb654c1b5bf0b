package io.starintel.lease.it.redis;

/**
 * The attached-key tests on Valkey: every test of {@link RedisAttachedKeysTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyAttachedKeysTests extends RedisAttachedKeysTests {

}
