package io.starintel.lease.it.failover;

import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RunsOn;

/** {@link FailoverLoadTests} on Valkey 8 (servers, sentinel and cluster). */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyFailoverLoadTests extends FailoverLoadTests {

}
