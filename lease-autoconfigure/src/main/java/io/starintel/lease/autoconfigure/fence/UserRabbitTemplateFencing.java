package io.starintel.lease.autoconfigure.fence;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.amqp.rabbit.core.BatchingRabbitTemplate;
import org.springframework.amqp.rabbit.core.RabbitOperations;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.fence.amqp.FencedRabbitTemplate;
import io.starintel.lease.fence.amqp.FencingMessagePostProcessor;

/**
 * Contract: Rabbit publication that makes an exclusive result externally visible is fenced, also through a
 * {@link RabbitTemplate} the application declares itself (which makes the auto-configured
 * {@link FencedRabbitTemplate} back off): each such bean gets a {@link FencingMessagePostProcessor} as a
 * before-publish post-processor. With {@code starintel.lease.fence.amqp.fence-user-templates=false} they are left
 * alone and start-up logs a warning naming each, so that no template publishes unfenced silently; so does a
 * {@link RabbitOperations} bean that is not a {@code RabbitTemplate} (it has no before-publish hook to fence).
 *
 * <p>A {@link BatchingRabbitTemplate} bean is never fenced, and start-up logs a warning naming it: its {@code send}
 * only buffers, and the batch is published by whichever thread releases it (a later send of any lease,
 * {@code flush()}, its scheduler), so a fencing post-processor would stamp one holder's messages with another's lease.
 * Its messages go out unstamped (a fenced consumer rejects them); fenced publishes go through the fenced
 * {@code RabbitTemplate}. Contract: every fenced message is authorized as its own publish.
 */
final class UserRabbitTemplateFencing implements BeanPostProcessor {

	private static final Logger logger = LoggerFactory.getLogger(UserRabbitTemplateFencing.class);

	private final ObjectProvider<FenceGuard> guards;

	private final ObjectProvider<FenceProperties> properties;

	private final ObjectProvider<FenceRejectionMetrics> metrics;

	UserRabbitTemplateFencing(ObjectProvider<FenceGuard> guards, ObjectProvider<FenceProperties> properties,
			ObjectProvider<FenceRejectionMetrics> metrics) {
		this.guards = guards;
		this.properties = properties;
		this.metrics = metrics;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (!(bean instanceof RabbitTemplate template)) {
			if (bean instanceof RabbitOperations) {
				// it makes the fenced template back off as well, and has no before-publish hook to fence
				logger.warn("RabbitOperations bean '{}' ({}) is not a RabbitTemplate and publishes unfenced: a publish "
						+ "under a lost lease is not refused", beanName, bean.getClass().getName());
			}
			return bean;
		}
		if (bean instanceof FencedRabbitTemplate) {
			return bean;
		}
		if (bean instanceof BatchingRabbitTemplate) {
			logger.warn("RabbitTemplate bean '{}' ({}) batches its publishes and is not fenced: a batch is sent by "
					+ "whichever thread releases it, so its messages cannot be authorized one by one; they go out "
					+ "unstamped (fenced consumers reject them) and a publish under a lost lease is not refused. Send "
					+ "fenced publishes through the fenced RabbitTemplate", beanName, bean.getClass().getName());
			return bean;
		}
		if (template.getBeforePublishPostProcessors() != null && template.getBeforePublishPostProcessors()
			.stream()
			.anyMatch(FencingMessagePostProcessor.class::isInstance)) {
			return bean;
		}
		FenceProperties.Amqp amqp = this.properties.getObject().amqp();
		if (!amqp.fenceUserTemplates()) {
			logger.warn("RabbitTemplate bean '{}' publishes unfenced (starintel.lease.fence.amqp.fence-user-templates"
					+ "=false): a publish under a lost lease is not refused", beanName);
			return bean;
		}
		FenceGuard guard = FenceAutoConfiguration.guard(this.guards.getObject(), this.metrics,
				FenceRejectionMetrics.PUBLISH);
		template.addBeforePublishPostProcessors(
				new FencingMessagePostProcessor(guard, amqp.fencedExchanges(), amqp.fencedQueues()));
		logger.debug("RabbitTemplate bean '{}' is fenced (FencingMessagePostProcessor)", beanName);
		return bean;
	}

}
