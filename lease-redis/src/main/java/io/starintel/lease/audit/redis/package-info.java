/**
 * The durable Redis Stream audit sink.
 */
@NullMarked
package io.starintel.lease.audit.redis;

import org.jspecify.annotations.NullMarked;
