package io.starintel.lease.job.internal;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import io.starintel.lease.core.LeaseConfigurationException;
import io.starintel.lease.core.LeaseConfigurationException.Problem;
import io.starintel.lease.job.TargetLeased;

/**
 * Fails start-up with a message naming the bean and its {@link TargetLeased} methods when the bean's class is
 * {@code final}: a class-based proxy cannot extend it, and Spring's own failure ("Could not generate CGLIB
 * subclass") would not say that the lease is why a proxy is needed. Runs before the auto-proxy creator.
 */
final class FinalLeasedClassCheck implements BeanPostProcessor {

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) throws BeansException {
		Class<?> type = ClassUtils.getUserClass(bean);
		if (!Modifier.isFinal(type.getModifiers())) {
			return bean;
		}
		List<Problem> problems = new ArrayList<>();
		ReflectionUtils.doWithMethods(type,
				(method) -> problems.add(new Problem("bean '" + beanName + "' method " + type.getSimpleName() + "."
						+ method.getName(), "is annotated @TargetLeased but its class " + type.getSimpleName()
								+ " is final (a class-based proxy cannot extend it)")),
				(method) -> method.isAnnotationPresent(TargetLeased.class));
		if (!problems.isEmpty()) {
			throw new LeaseConfigurationException(problems, "Remove the final modifier from the class, so that the "
					+ "lease aspect's proxy can extend it.");
		}
		return bean;
	}

}
