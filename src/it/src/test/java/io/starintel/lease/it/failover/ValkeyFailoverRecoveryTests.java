package io.starintel.lease.it.failover;

import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RunsOn;

/** {@link FailoverRecoveryTests} on Valkey. */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyFailoverRecoveryTests extends FailoverRecoveryTests {

}
