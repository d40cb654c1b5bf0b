package io.starintel.lease.it.fence;

import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RunsOn;

/**
 * The checkpoint fence, with the lease store on Valkey: every test of {@link CheckpointFenceTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyCheckpointFenceTests extends CheckpointFenceTests {

}
