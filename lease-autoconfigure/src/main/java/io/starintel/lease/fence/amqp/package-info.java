/**
 * RabbitMQ fenced publication ({@link io.starintel.lease.fence.amqp.FencedRabbitTemplate}) and the consumer-side
 * token guard ({@link io.starintel.lease.fence.amqp.FencedListenerAdvice}).
 */
@NullMarked
package io.starintel.lease.fence.amqp;

import org.jspecify.annotations.NullMarked;
