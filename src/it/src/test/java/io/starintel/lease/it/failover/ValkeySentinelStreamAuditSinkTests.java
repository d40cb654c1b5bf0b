package io.starintel.lease.it.failover;

import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RunsOn;

/** {@link SentinelStreamAuditSinkTests} on Valkey 8 (its servers and sentinels). */
@RunsOn(RedisServerKind.VALKEY)
class ValkeySentinelStreamAuditSinkTests extends SentinelStreamAuditSinkTests {

}
