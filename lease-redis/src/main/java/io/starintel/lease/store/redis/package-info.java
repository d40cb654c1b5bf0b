/**
 * The Redis (and Valkey) lease store: one library of Lua functions, the keys it writes and the replies it reads.
 * {@code RedisLeaseStore} is the one public type; its key layout and Lettuce shim are in {@code .internal} (not API).
 */
@NullMarked
package io.starintel.lease.store.redis;

import org.jspecify.annotations.NullMarked;
