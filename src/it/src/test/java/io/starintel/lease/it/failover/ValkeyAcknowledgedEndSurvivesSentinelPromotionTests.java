package io.starintel.lease.it.failover;

import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RunsOn;

/** {@link AcknowledgedEndSurvivesSentinelPromotionTests} on Valkey 8 (its servers and its sentinels). */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyAcknowledgedEndSurvivesSentinelPromotionTests extends AcknowledgedEndSurvivesSentinelPromotionTests {

}
