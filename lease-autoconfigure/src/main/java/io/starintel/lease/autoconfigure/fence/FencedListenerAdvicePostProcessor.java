package io.starintel.lease.autoconfigure.fence;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

import org.aopalliance.intercept.MethodInterceptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.config.AbstractRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.DirectReplyToMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpoint;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.NameMatchMethodPointcutAdvisor;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ReflectionUtils;

import io.starintel.lease.fence.amqp.internal.FencedListenerAdvice;

/**
 * Puts the {@link FencedListenerAdvice} first in the advice chain of every listener container, when the advice bean
 * exists ({@link FencedListenerAdvice#fenceFirst}: outside retry advice, bound to the container's acknowledge mode).
 *
 * <p>Not in the factory's advice chain: a factory's container customizer runs after the factory has applied its
 * chain and may replace it ({@code factory.setContainerCustomizer(c -> c.setAdviceChain(...))}), which used to remove
 * the fence silently. So a listener container factory bean is wrapped (a class proxy, still of the factory's type)
 * whose {@code createListenerContainer} puts the fence first in each container after the factory and its
 * customizer are done, before the {@code RabbitListenerEndpointRegistry} initializes the container (the container
 * builds its listener proxy from the chain then, once). A listener container declared as a bean is fenced before its
 * initialization, as it is not built by a factory. Left alone: the reply containers of a {@code RabbitTemplate}
 * (a {@link DirectReplyToMessageListenerContainer}, or a container whose listener is the template), which consume the
 * replies of {@code sendAndReceive}, not fenced work.
 */
final class FencedListenerAdvicePostProcessor implements BeanPostProcessor {

	private static final Logger logger = LoggerFactory.getLogger(FencedListenerAdvicePostProcessor.class);

	private final ObjectProvider<FencedListenerAdvice> advice;

	FencedListenerAdvicePostProcessor(ObjectProvider<FencedListenerAdvice> advice) {
		this.advice = advice;
	}

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		if (bean instanceof AbstractMessageListenerContainer container) {
			if (container instanceof DirectReplyToMessageListenerContainer
					|| container.getMessageListener() instanceof RabbitTemplate) {
				logger.debug("Listener container bean '{}' receives RabbitTemplate replies: not fenced", beanName);
				return bean;
			}
			FencedListenerAdvice fenced = this.advice.getIfAvailable();
			if (fenced != null) {
				fenced.fenceFirst(container);
			}
		}
		return bean;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof AbstractRabbitListenerContainerFactory<?> factory) {
			FencedListenerAdvice fenced = this.advice.getIfAvailable();
			if (fenced != null) {
				return fencing(factory, fenced, beanName);
			}
		}
		return bean;
	}

	/** The factory, its containers fenced as it returns them. */
	private static Object fencing(AbstractRabbitListenerContainerFactory<?> factory, FencedListenerAdvice fenced,
			String beanName) {
		Method create = ReflectionUtils.findMethod(factory.getClass(), "createListenerContainer",
				RabbitListenerEndpoint.class);
		if (create == null || Modifier.isFinal(create.getModifiers())) {
			// fail closed: its containers would consume unfenced
			throw new BeanInitializationException("Listener container factory '" + beanName + "' ("
					+ factory.getClass().getName() + ") cannot be fenced: its createListenerContainer is final");
		}
		NameMatchMethodPointcutAdvisor advisor = new NameMatchMethodPointcutAdvisor((MethodInterceptor) (invocation) -> {
			Object container = invocation.proceed();
			if (container instanceof AbstractMessageListenerContainer created) {
				fenced.fenceFirst(created);
			}
			return container;
		});
		advisor.setMappedName("createListenerContainer");
		ProxyFactory proxy = new ProxyFactory(factory);
		proxy.setProxyTargetClass(true);
		proxy.addAdvisor(advisor);
		return proxy.getProxy(factory.getClass().getClassLoader());
	}

}
