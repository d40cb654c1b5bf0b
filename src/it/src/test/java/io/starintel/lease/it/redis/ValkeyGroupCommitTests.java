package io.starintel.lease.it.redis;

/** {@link RedisGroupCommitTests} on Valkey. */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyGroupCommitTests extends RedisGroupCommitTests {

}
