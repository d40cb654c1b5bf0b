/**
 * The Redis (and Valkey) lease store: one library of Lua functions, the keys it writes and the replies it reads.
 */
@NullMarked
package io.starintel.lease.store.redis;

import org.jspecify.annotations.NullMarked;
