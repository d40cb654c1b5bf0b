package io.starintel.lease.job.internal;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import io.starintel.lease.core.LeaseConfigurationException;
import io.starintel.lease.core.LeaseConfigurationException.Problem;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.job.ConflictPolicy;
import io.starintel.lease.job.MisuseMode;
import io.starintel.lease.job.TargetLeased;

/**
 * Start-up checks of every {@link TargetLeased} method on the application's singleton beans, once all of them
 * exist.
 *
 * <ul>
 * <li>The {@code target} SpEL expression must be non-blank and parse. A failure always fails start-up (every call
 * would be refused {@code invalid_lease_request}).</li>
 * <li>Durations ({@code ttl}, {@code maxLifetime}, {@code waitFor}) are parsed strictly ({@link LeaseDurationFormat}: a
 * unit is required) and checked against the lease policy: {@code ttl.minimum < ttl <= ttl.maximum},
 * {@code ttl <= maxLifetime <= ttl.maximum-lifetime}, {@code waitFor <= request.maximum-wait}. A violation always fails start-up
 * (every call would fail anyway).</li>
 * <li>Misuse the aspect can never intercept: a private, static or final method, or a bean that is not an AOP proxy
 * (for example created before the auto-proxy creator, or with auto-proxying turned off). It fails start-up by
 * default, or logs one WARN per method with {@link MisuseMode#WARN}.</li>
 * </ul>
 * Every message names the bean, the method and the attribute, the parsed value, the bounds and the properties that
 * set them. Self-invocation (a call through {@code this}) cannot be seen here: see docs/jobs.md.
 */
final class TargetLeasedVerifier implements SmartInitializingSingleton, BeanFactoryAware {

	private static final Logger logger = LoggerFactory.getLogger(TargetLeasedVerifier.class);

	private static final String PREFIX = "starintel.lease.";

	private final LeasePolicy policy;

	private final Duration maximumWait;

	private final MisuseMode mode;

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	/**
	 * A verifier.
	 * @param policy the lease policy ({@code starintel.lease.ttl.*})
	 * @param maximumWait {@code starintel.lease.request.maximum-wait}
	 * @param mode what to do about misuse ({@code starintel.lease.job.misuse})
	 */
	TargetLeasedVerifier(LeasePolicy policy, Duration maximumWait, MisuseMode mode) {
		this.policy = Objects.requireNonNull(policy, "policy");
		this.maximumWait = Objects.requireNonNull(maximumWait, "maximumWait");
		this.mode = Objects.requireNonNull(mode, "mode");
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
		this.beanFactory = (beanFactory instanceof ConfigurableListableBeanFactory listable) ? listable : null;
	}

	@Override
	public void afterSingletonsInstantiated() {
		ConfigurableListableBeanFactory factory = this.beanFactory;
		if (factory == null) {
			return;
		}
		List<Problem> invalid = new ArrayList<>();
		List<Problem> misuse = new ArrayList<>();
		for (String name : factory.getSingletonNames()) {
			Object bean = factory.getSingleton(name);
			if (bean != null) {
				verify(name, bean, invalid, misuse);
			}
		}
		if (this.mode == MisuseMode.WARN) {
			for (Problem problem : misuse) {
				logger.warn("{} {}: it runs WITHOUT a lease (starintel.lease.job.misuse=warn)", problem.where(),
						problem.what());
			}
		}
		else {
			invalid.addAll(misuse);
		}
		if (!invalid.isEmpty()) {
			throw new LeaseConfigurationException(invalid, "Fix each @TargetLeased method listed. The target is a "
					+ "SpEL expression over the method's arguments (#target, #target.id()). Durations need a unit "
					+ "(30s, 500ms, 5m) and must lie within the bounds the named properties set. A leased method "
					+ "must be public or protected, neither static nor final, on a Spring bean that is proxied; call "
					+ "it through the bean (not this.method()). To start anyway with a warning for the proxying "
					+ "problems, set " + PREFIX + "job.misuse=warn.");
		}
	}

	/** Checks one bean: durations into {@code invalid}, unreachable methods into {@code misuse}. */
	void verify(String beanName, Object bean, List<Problem> invalid, List<Problem> misuse) {
		Class<?> userClass = ClassUtils.getUserClass(AopUtils.getTargetClass(bean));
		List<Method> leased = leasedMethods(userClass);
		if (leased.isEmpty()) {
			return;
		}
		boolean proxied = AopUtils.isAopProxy(bean);
		for (Method method : leased) {
			String where = "bean '" + beanName + "' method " + method.getDeclaringClass().getSimpleName() + "."
					+ method.getName();
			TargetLeased annotation = method.getAnnotation(TargetLeased.class);
			durations(where, method, annotation, invalid);
			target(where, annotation, invalid);
			String unreachable = unreachable(method, userClass);
			if (unreachable != null) {
				misuse.add(new Problem(where, "is annotated @TargetLeased but " + unreachable
						+ ", so the lease aspect never intercepts it"));
			}
			else if (!proxied) {
				misuse.add(new Problem(where, "is annotated @TargetLeased but the bean is not an AOP proxy (created "
						+ "before auto-proxying, or spring.aop.auto=false), so the lease aspect never intercepts it"));
			}
		}
	}

	private static @Nullable String unreachable(Method method, Class<?> userClass) {
		int modifiers = method.getModifiers();
		if (Modifier.isPrivate(modifiers)) {
			return "it is private";
		}
		if (Modifier.isStatic(modifiers)) {
			return "it is static";
		}
		if (Modifier.isFinal(modifiers)) {
			return "it is final (a class-based proxy cannot override it)";
		}
		if (Modifier.isFinal(userClass.getModifiers())) {
			return "its class " + userClass.getSimpleName() + " is final (a class-based proxy cannot extend it)";
		}
		return null;
	}

	private void durations(String where, Method method, TargetLeased leased, List<Problem> invalid) {
		Duration ttl = parse(where, "ttl", leased.ttl(), invalid);
		Duration maxLifetime = parse(where, "maxLifetime", leased.maxLifetime(), invalid);
		Duration waitFor = parse(where, "waitFor", leased.waitFor(), invalid);
		if (ttl != null && (ttl.compareTo(this.policy.minimumTtl()) <= 0 || ttl.compareTo(this.policy.maximumTtl()) > 0)) {
			invalid.add(new Problem(where, attribute("ttl", leased.ttl(), ttl) + " must satisfy " + PREFIX
					+ "ttl.minimum (" + LeaseDurationFormat.format(this.policy.minimumTtl()) + ") < ttl <= " + PREFIX
					+ "ttl.maximum (" + LeaseDurationFormat.format(this.policy.maximumTtl()) + ")"));
		}
		if (maxLifetime != null && maxLifetime.compareTo(this.policy.maximumLifetime()) > 0) {
			invalid.add(new Problem(where, attribute("maxLifetime", leased.maxLifetime(), maxLifetime)
					+ " must not exceed " + PREFIX + "ttl.maximum-lifetime ("
					+ LeaseDurationFormat.format(this.policy.maximumLifetime()) + ")"));
		}
		if (maxLifetime != null && ttl != null && maxLifetime.compareTo(ttl) < 0) {
			invalid.add(new Problem(where, attribute("maxLifetime", leased.maxLifetime(), maxLifetime)
					+ " must be at least the method's ttl (" + LeaseDurationFormat.format(ttl) + ")"));
		}
		if (waitFor != null && waitFor.compareTo(this.maximumWait) > 0) {
			invalid.add(new Problem(where, attribute("waitFor", leased.waitFor(), waitFor) + " must not exceed "
					+ PREFIX + "request.maximum-wait (" + LeaseDurationFormat.format(this.maximumWait) + ")"));
		}
		Class<?> returnType = method.getReturnType();
		if (returnType.isPrimitive() && returnType != void.class && leased.onConflict() == ConflictPolicy.SKIP) {
			invalid.add(new Problem(where, "returns " + returnType + ", which cannot express a skipped call: use "
					+ "onConflict = THROW or a reference/Optional return type"));
		}
	}

	/** The target expression parses (its one parse: {@link TargetLeasePlan#parseTarget}); every call fails if not. */
	private static void target(String where, TargetLeased leased, List<Problem> invalid) {
		try {
			TargetLeasePlan.parseTarget(leased.target());
		}
		catch (IllegalArgumentException ex) {
			invalid.add(new Problem(where, "@TargetLeased(target): " + ex.getMessage()));
		}
	}

	private static String attribute(String name, String text, Duration value) {
		return "@TargetLeased(" + name + " = \"" + text + "\") parsed as " + LeaseDurationFormat.format(value);
	}

	private static @Nullable Duration parse(String where, String name, String text, List<Problem> invalid) {
		try {
			return LeaseDurationFormat.parse(text);
		}
		catch (IllegalArgumentException ex) {
			invalid.add(new Problem(where, "@TargetLeased(" + name + "): " + ex.getMessage()));
			return null;
		}
	}

	private static List<Method> leasedMethods(Class<?> type) {
		List<Method> methods = new ArrayList<>();
		ReflectionUtils.doWithMethods(type, methods::add,
				(method) -> !method.isBridge() && !method.isSynthetic() && method.isAnnotationPresent(TargetLeased.class));
		return methods;
	}

}
