package io.starintel.lease.it.fence;

import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RunsOn;

/**
 * The consumer fence in the application's listener containers, with the lease store on Valkey: every test of
 * {@link RabbitListenerContainerFenceTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyRabbitListenerContainerFenceTests extends RabbitListenerContainerFenceTests {

}
