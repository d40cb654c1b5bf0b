/**
 * RabbitMQ fenced publication ({@link io.starintel.lease.fence.amqp.FencedRabbitTemplate}) and the consumer-side
 * token guard ({@link io.starintel.lease.fence.amqp.FencedListenerAdvice}).
 *
 * <p>Not API: {@code ConsumerRejectionRecorder}, {@code FencedDestinations}, {@code FencedListenerAdvice},
 * {@code MicrometerFenceRejectionMeter} are public only because another package of this project uses them (listed as
 * {@code internal} in {@code public-types/lease-autoconfigure.txt}; docs/ARCHITECTURE.md, "Public API"); they may
 * change without notice.
 */
@NullMarked
package io.starintel.lease.fence.amqp;

import org.jspecify.annotations.NullMarked;
