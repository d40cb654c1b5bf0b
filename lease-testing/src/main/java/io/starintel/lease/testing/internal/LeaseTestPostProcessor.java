package io.starintel.lease.testing.internal;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;

import org.aopalliance.intercept.MethodInterceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.StaticMethodMatcherPointcutAdvisor;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import io.starintel.lease.job.LeaseLostEvent;
import io.starintel.lease.job.LeaseLostListener;
import io.starintel.lease.store.LeaseStore;

/**
 * Wraps the application's {@link LeaseStore} bean (the auto-configured Redis store, the in-memory test store or the
 * application's own) in a {@link LeaseTestStore}, and adds to its {@link LeaseLostListener} the recording of each
 * event (AOP advice: the listener bean keeps its class, so the application still injects it by its class, and it is
 * still called first); both write into one {@link LeaseObservations}. The audit layer and the {@code LeaseService} facade are built
 * over the wrapped store, so what the tester switches applies to jobs, fenced writes and admin operations alike.
 */
public final class LeaseTestPostProcessor implements BeanPostProcessor, BeanFactoryAware, BeanClassLoaderAware,
		Ordered {

	/** Bean name of the in-memory store the test auto-configuration defines. */
	public static final String MEMORY_STORE_BEAN = "leaseTestMemoryStore";

	/** Bean name of that store's backend clock. */
	public static final String CLOCK_BEAN = "leaseTestBackendClock";

	private static final String LEASE_LOST = "leaseLost";

	private final LeaseObservations observations = new LeaseObservations();

	private @Nullable BeanFactory beanFactory;

	private @Nullable ClassLoader classLoader;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public void setBeanClassLoader(ClassLoader classLoader) {
		this.classLoader = classLoader;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		if (bean instanceof LeaseStore store && !(bean instanceof LeaseTestStore)) {
			MutableBackendClock clock = (MEMORY_STORE_BEAN.equals(beanName) && this.beanFactory != null)
					? this.beanFactory.getBean(CLOCK_BEAN, MutableBackendClock.class) : null;
			return new LeaseTestStore(store, clock, this.observations);
		}
		if (bean instanceof LeaseLostListener) {
			return recording(bean);
		}
		return bean;
	}

	/**
	 * The listener bean with the recording added as AOP advice: to its own advice chain when it is already a Spring
	 * AOP proxy, else in a proxy of its class (so that it is still injected by its class); a lambda, a final class or
	 * a final {@code leaseLost} can only be proxied by its interfaces.
	 */
	private Object recording(Object bean) {
		if (bean instanceof Advised advised && !advised.isFrozen()) {
			for (Advisor advisor : advised.getAdvisors()) {
				if (advisor instanceof RecordingAdvisor) {
					return bean;
				}
			}
			advised.addAdvisor(0, new RecordingAdvisor(this.observations));
			return bean;
		}
		ProxyFactory factory = new ProxyFactory(bean);
		factory.setProxyTargetClass(classPreserving(bean.getClass()));
		factory.addAdvisor(new RecordingAdvisor(this.observations));
		return factory.getProxy(this.classLoader);
	}

	private static boolean classPreserving(Class<?> type) {
		if (Modifier.isFinal(type.getModifiers()) || type.isHidden() || ClassUtils.isLambdaClass(type)
				|| Proxy.isProxyClass(type)) {
			return false;
		}
		Method leaseLost = ReflectionUtils.findMethod(type, LEASE_LOST, LeaseLostEvent.class);
		return leaseLost != null && !Modifier.isFinal(leaseLost.getModifiers());
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	/**
	 * Around {@code leaseLost(LeaseLostEvent)}: the application's listener, then the record (a listener must not throw;
	 * the record happens regardless).
	 */
	static final class RecordingAdvisor extends StaticMethodMatcherPointcutAdvisor {

		RecordingAdvisor(LeaseObservations observations) {
			setAdvice((MethodInterceptor) (invocation) -> {
				try {
					return invocation.proceed();
				}
				finally {
					observations.lost((LeaseLostEvent) invocation.getArguments()[0]);
				}
			});
		}

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return LEASE_LOST.equals(method.getName()) && method.getParameterCount() == 1
					&& method.getParameterTypes()[0] == LeaseLostEvent.class;
		}

	}

}
