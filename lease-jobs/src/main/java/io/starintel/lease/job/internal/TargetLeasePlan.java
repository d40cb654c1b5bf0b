package io.starintel.lease.job.internal;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.job.ConflictPolicy;
import io.starintel.lease.job.LeaseAcquisitionException;
import io.starintel.lease.job.ResolvedTarget;
import io.starintel.lease.job.TargetLeased;
import io.starintel.lease.job.TargetResolver;

/**
 * What the aspect derives once per {@link TargetLeased} method: the parsed target expression, the durations, the
 * conflict policy and the return shape; and, per call, the lock identity of the call's target.
 *
 * <p>Contract: tenant and program come from configuration, never from the call; the target is resolved by the
 * application's {@link TargetResolver}; a reference that does not resolve or an identity that does not normalize is
 * {@code invalid_lease_request} and the method does not run.
 */
final class TargetLeasePlan {

	private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

	private static final SpelExpressionParser PARSER = new SpelExpressionParser();

	final String name;

	final Duration ttl;

	final Duration maxLifetime;

	final Duration waitFor;

	final ConflictPolicy onConflict;

	final boolean async;

	/** The parsed target expression; {@code null} when it does not parse ({@link #targetProblem} says why). */
	private final @Nullable Expression target;

	private final @Nullable String targetProblem;

	private final String targetNamespace;

	private final String actor;

	private final String workflow;

	private final String operationClass;

	private final Class<?> returnType;

	private volatile @Nullable Class<?> lastTargetClass;

	private volatile @Nullable Method lastSpecific;

	private volatile int simpleParameter = -2;

	TargetLeasePlan(Method method, TargetLeased leased) {
		this.name = method.getDeclaringClass().getSimpleName() + "." + method.getName();
		Expression target = null;
		String targetProblem = null;
		try {
			target = parseTarget(leased.target());
		}
		catch (IllegalArgumentException ex) {
			targetProblem = ex.getMessage();
		}
		this.target = target;
		this.targetProblem = targetProblem;
		this.targetNamespace = leased.targetNamespace();
		this.actor = leased.actor();
		this.workflow = leased.workflow();
		this.operationClass = leased.operationClass();
		this.ttl = duration("ttl", leased.ttl());
		this.maxLifetime = duration("maxLifetime", leased.maxLifetime());
		this.waitFor = duration("waitFor", leased.waitFor());
		this.onConflict = leased.onConflict();
		this.returnType = method.getReturnType();
		this.async = CompletionStage.class.isAssignableFrom(this.returnType);
		if (this.returnType.isPrimitive() && this.returnType != void.class && this.onConflict == ConflictPolicy.SKIP) {
			throw new IllegalStateException("@TargetLeased method " + this.name + " returns a primitive "
					+ this.returnType + ", which cannot express a skipped call: use onConflict = THROW or a "
					+ "reference/Optional return type");
		}
	}

	/**
	 * The lock identity of one call: the target reference (a parameter, or the SpEL expression over the
	 * arguments) resolved by {@code resolver}, with tenant, program and operation classes from {@code settings}.
	 * @throws LeaseAcquisitionException {@code invalid_lease_request} when the target does not resolve or normalize
	 */
	LockIdentity identity(Method method, @Nullable Object bean, @Nullable Object[] args, TargetResolver resolver,
			JobSettings settings) {
		Expression target = this.target;
		if (target == null) {
			// the start-up check refuses it; a bean it did not check (lazy, prototype) gets the typed refusal per call
			throw new LeaseAcquisitionException(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE,
					"@TargetLeased(target) of " + this.name + ": " + this.targetProblem);
		}
		ResolvedTarget resolved;
		try {
			Method specific = specificMethod(method, bean);
			int parameter = simpleParameterIndex(specific, target);
			Object reference = (parameter >= 0) ? args[parameter]
					: target.getValue(new MethodBasedEvaluationContext(bean, specific, args, PARAMETER_NAMES));
			resolved = resolver.resolve(this.targetNamespace, reference);
		}
		catch (RuntimeException ex) {
			throw new LeaseAcquisitionException(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE,
					"Target reference of " + this.name + " did not resolve to a trusted target", ex);
		}
		try {
			return LockIdentity.of(settings.operationClasses(), settings.tenantId(), settings.programId(),
					resolved.targetNamespace(), resolved.targetId(), this.actor, this.workflow, this.operationClass);
		}
		catch (InvalidLeaseRequestException ex) {
			throw new LeaseAcquisitionException(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE,
					"Invalid lock identity for " + this.name + ": " + ex.getMessage());
		}
	}

	/**
	 * Parses a {@link TargetLeased#target()} expression: the one parse of it, for the start-up check
	 * ({@link TargetLeasedVerifier}) and the plan alike.
	 * @throws IllegalArgumentException when it is blank or does not parse, with a message that says which (to follow
	 * the attribute's name)
	 */
	static Expression parseTarget(String text) {
		if (text == null || text.isBlank()) {
			throw new IllegalArgumentException("is blank: write a SpEL expression over the method's arguments, e.g. "
					+ "\"#target\" or \"#target.id()\"");
		}
		try {
			return PARSER.parseExpression(text);
		}
		catch (RuntimeException ex) {
			// SpelParseException (a ParseException), or what the parser throws for input it cannot read at all
			throw new IllegalArgumentException("\"" + text + "\" does not parse as SpEL: " + ex.getMessage(), ex);
		}
	}

	/** What a call that does not run returns: {@code Optional.empty()}, a completed future, or {@code null}. */
	@Nullable Object skipValue() {
		if (this.returnType == Optional.class) {
			return Optional.empty();
		}
		if (this.async) {
			return CompletableFuture.completedFuture(null);
		}
		return null;
	}

	/** The most specific method for the target's class (cached for the last class seen). */
	private Method specificMethod(Method method, @Nullable Object bean) {
		if (bean == null) {
			return method;
		}
		Class<?> targetClass = bean.getClass();
		Method specific = this.lastSpecific;
		if (specific == null || this.lastTargetClass != targetClass) {
			specific = AopUtils.getMostSpecificMethod(method, targetClass);
			this.lastSpecific = specific;
			this.lastTargetClass = targetClass;
		}
		return specific;
	}

	/**
	 * For an expression that is just {@code #name} naming a parameter: that parameter's index (evaluated without
	 * SpEL); otherwise -1.
	 */
	private int simpleParameterIndex(Method specific, Expression target) {
		int index = this.simpleParameter;
		if (index == -2) {
			index = -1;
			String text = target.getExpressionString();
			String[] names = PARAMETER_NAMES.getParameterNames(specific);
			if (text.matches("#[A-Za-z_][A-Za-z0-9_]*") && names != null) {
				for (int i = 0; i < names.length; i++) {
					if (names[i].equals(text.substring(1))) {
						index = i;
					}
				}
			}
			this.simpleParameter = index;
		}
		return index;
	}

	private Duration duration(String attribute, String text) {
		try {
			return LeaseDurationFormat.parse(text);
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("@TargetLeased(" + attribute + ") of " + this.name + ": " + ex.getMessage(),
					ex);
		}
	}

}
