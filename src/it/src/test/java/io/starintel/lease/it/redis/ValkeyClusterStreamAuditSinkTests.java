package io.starintel.lease.it.redis;

/**
 * The durable audit sink on a Valkey Cluster (own 3 nodes): every test of {@link RedisClusterStreamAuditSinkTests},
 * unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyClusterStreamAuditSinkTests extends RedisClusterStreamAuditSinkTests {

}
