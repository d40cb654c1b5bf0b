package io.starintel.lease.it.fence;

import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RunsOn;

/**
 * One FCALL per fence path, with the lease store on Valkey: every test of {@link FenceFunctionCallTests}, unchanged.
 */
@RunsOn(RedisServerKind.VALKEY)
class ValkeyFenceFunctionCallTests extends FenceFunctionCallTests {

}
