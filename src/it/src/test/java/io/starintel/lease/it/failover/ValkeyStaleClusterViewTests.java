package io.starintel.lease.it.failover;

import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RunsOn;

/** {@link StaleClusterViewTests} on a Valkey 8 cluster. */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyStaleClusterViewTests extends StaleClusterViewTests {

}
