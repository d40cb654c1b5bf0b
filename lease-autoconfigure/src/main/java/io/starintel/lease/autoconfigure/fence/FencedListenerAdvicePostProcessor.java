package io.starintel.lease.autoconfigure.fence;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.aopalliance.aop.Advice;
import org.springframework.amqp.rabbit.config.AbstractRabbitListenerContainerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

import io.starintel.lease.fence.amqp.internal.FencedListenerAdvice;

/**
 * Puts the {@link FencedListenerAdvice} first in the advice chain of every listener container factory (outside
 * retry advice), when the advice bean exists.
 */
final class FencedListenerAdvicePostProcessor implements BeanPostProcessor {

	private final ObjectProvider<FencedListenerAdvice> advice;

	FencedListenerAdvicePostProcessor(ObjectProvider<FencedListenerAdvice> advice) {
		this.advice = advice;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof AbstractRabbitListenerContainerFactory<?> factory) {
			FencedListenerAdvice fenced = this.advice.getIfAvailable();
			if (fenced != null) {
				List<Advice> chain = new ArrayList<>();
				chain.add(fenced);
				Advice[] existing = factory.getAdviceChain();
				if (existing != null) {
					Arrays.stream(existing).filter((a) -> a != fenced).forEach(chain::add);
				}
				factory.setAdviceChain(chain.toArray(new Advice[0]));
			}
		}
		return bean;
	}

}
