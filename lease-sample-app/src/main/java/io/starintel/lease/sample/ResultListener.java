package io.starintel.lease.sample;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

import io.starintel.lease.fence.amqp.FenceHeaders;

/**
 * Profile {@code real}: consumes the result messages behind the fenced listener guard. The guard runs first in the
 * container's advice chain: a message whose token is below one already accepted for its identity never reaches
 * this method; it is dead-lettered to the DLQ and logged by the library as {@code target_lease_commit_rejected}.
 */
@Component
@Profile("real")
class ResultListener {

	private static final Logger logger = LoggerFactory.getLogger(ResultListener.class);

	private final AtomicInteger accepted = new AtomicInteger();

	@RabbitListener(queues = "${sample.results-queue}")
	void onResult(Message message) {
		this.accepted.incrementAndGet();
		logger.info("result message ACCEPTED by the consumer guard: token {} lease {} body {}",
				message.getMessageProperties().getHeaders().get(FenceHeaders.TOKEN),
				message.getMessageProperties().getHeaders().get(FenceHeaders.LEASE_ID),
				new String(message.getBody(), StandardCharsets.UTF_8));
	}

	/** Number of result messages this instance consumed (accepted by the guard). */
	int accepted() {
		return this.accepted.get();
	}

}
