package io.starintel.lease.it.fence;

import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RunsOn;

/**
 * The RabbitMQ fence (publish side and consumer side), with the lease store on Valkey: every test of {@link RabbitFenceTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyRabbitFenceTests extends RabbitFenceTests {

}
