package io.starintel.lease.it.failover;

import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RunsOn;

/** {@link ReplicatedClusterStreamAuditSinkTests} on a Valkey 8 cluster. */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyReplicatedClusterStreamAuditSinkTests extends ReplicatedClusterStreamAuditSinkTests {

}
