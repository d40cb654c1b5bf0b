/**
 * Not API: may change without notice. The consumer-side token guard of RabbitMQ deliveries
 * ({@code FencedListenerAdvice}, put into listener-container advice chains by the auto-configuration) and the record
 * of its rejections (log, audit, metrics); docs/fencing.md, "RabbitMQ".
 */
@NullMarked
package io.starintel.lease.fence.amqp.internal;

import org.jspecify.annotations.NullMarked;
