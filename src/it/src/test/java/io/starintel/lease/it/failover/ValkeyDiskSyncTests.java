package io.starintel.lease.it.failover;

import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RunsOn;

/** {@link DiskSyncTests} on Valkey 8. */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyDiskSyncTests extends DiskSyncTests {

}
