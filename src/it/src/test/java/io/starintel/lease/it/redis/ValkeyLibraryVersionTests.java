package io.starintel.lease.it.redis;

/** {@link RedisLibraryVersionTests} against Valkey. */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyLibraryVersionTests extends RedisLibraryVersionTests {

}
