/**
 * The Redis (and Valkey) lease store: one library of Lua functions, the keys it writes and the replies it reads.
 *
 * <p>Not API: {@code LettuceConnections}, {@code RedisKeys} are public only because another package of this project
 * uses them (listed as {@code internal} in {@code public-types/lease-autoconfigure.txt}; docs/ARCHITECTURE.md,
 * "Public API"); they may change without notice.
 */
@NullMarked
package io.starintel.lease.store.redis;

import org.jspecify.annotations.NullMarked;
