package io.starintel.lease.job.internal;

import java.util.function.Supplier;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.util.function.SingletonSupplier;

import io.starintel.lease.job.TargetLeased;

/**
 * Applies the {@link TargetLeaseInterceptor} to every method annotated {@link TargetLeased}, on the method itself or
 * on the most specific method of the bean's class (the match an AspectJ {@code @annotation} pointcut makes in
 * Spring AOP). The pointcut is static, so a proxy decides once per method whether the interceptor applies and calls
 * it directly; an AspectJ {@code @Around} advice was matched again on every call and called reflectively.
 *
 * <p>Any auto-proxy creator applies it: Spring Boot's AspectJ one, or the infrastructure one Boot registers when
 * AspectJ is absent (the advisor bean is declared with the infrastructure role). The interceptor is obtained on the
 * first call: proxy creation looks advisors up while other beans are still being created, and the interceptor
 * depends on the lease store.
 */
public final class TargetLeasedAdvisor extends AbstractPointcutAdvisor {

	private final Pointcut pointcut = new AnnotationMatchingPointcut(null, TargetLeased.class, false);

	private final Advice advice;

	/** An advisor whose interceptor is obtained once, on the first call of a leased method. */
	public TargetLeasedAdvisor(Supplier<TargetLeaseInterceptor> interceptor) {
		SingletonSupplier<TargetLeaseInterceptor> once = SingletonSupplier.of(interceptor);
		this.advice = (MethodInterceptor) (invocation) -> once.obtain().invoke(invocation);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.advice;
	}

}
