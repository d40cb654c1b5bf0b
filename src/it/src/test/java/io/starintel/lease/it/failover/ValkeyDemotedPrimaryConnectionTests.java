package io.starintel.lease.it.failover;

import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RunsOn;

/** {@link DemotedPrimaryConnectionTests} on Valkey. */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyDemotedPrimaryConnectionTests extends DemotedPrimaryConnectionTests {

}
