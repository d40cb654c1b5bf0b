/**
 * Not API: may change without notice. The lease store's Redis key layout ({@code RedisKeys}) and the Lettuce
 * version shim ({@code LettuceConnections}), public only because the fence packages of this project use them
 * (listed as {@code internal} in {@code public-types/lease-redis.txt}; docs/ARCHITECTURE.md, "Public API").
 */
@NullMarked
package io.starintel.lease.store.redis.internal;

import org.jspecify.annotations.NullMarked;
