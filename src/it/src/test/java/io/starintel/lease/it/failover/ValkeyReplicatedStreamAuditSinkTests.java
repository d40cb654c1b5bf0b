package io.starintel.lease.it.failover;

import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RunsOn;

/** {@link ReplicatedStreamAuditSinkTests} on Valkey 8. */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyReplicatedStreamAuditSinkTests extends ReplicatedStreamAuditSinkTests {

}
