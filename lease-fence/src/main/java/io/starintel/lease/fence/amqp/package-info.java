/**
 * RabbitMQ fenced publication ({@link io.starintel.lease.fence.amqp.FencedRabbitTemplate}, and
 * {@link io.starintel.lease.fence.amqp.FencingMessagePostProcessor} for a template of the application's), the
 * headers a fenced publish carries ({@link io.starintel.lease.fence.amqp.FenceHeaders}) and the typed rejections of
 * the consumer-side token guard (in {@code fence.amqp.internal}, which is not API).
 */
@NullMarked
package io.starintel.lease.fence.amqp;

import org.jspecify.annotations.NullMarked;
