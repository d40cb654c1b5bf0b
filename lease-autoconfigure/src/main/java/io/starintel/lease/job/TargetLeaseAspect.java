package io.starintel.lease.job;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;

import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.reflect.MethodSignature;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.support.AopUtils;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.Identifiers;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;

/**
 * The {@link TargetLeased} aspect: acquire, bind the {@link LeaseContext}, renew, cancel on loss, release.
 *
 * <p>Contract rules enforced here: tenant and program come from configuration; the target is resolved by a
 * {@link TargetResolver}; acquisition is non-blocking unless a bounded, jittered wait is requested (capped by
 * {@code starintel.lease.maximum-wait}); an acquisition that is not {@code lease_acquired} never runs the method;
 * release uses a fresh request id and runs also when the method throws.
 */
@Aspect
public class TargetLeaseAspect {

	private static final Logger logger = LoggerFactory.getLogger(TargetLeaseAspect.class);

	private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

	private static final SpelExpressionParser PARSER = new SpelExpressionParser();

	private final LeaseService service;

	private final LeaseRenewalScheduler scheduler;

	private final TargetResolver resolver;

	private final LeaseOwnerProvider owners;

	private final JobSettings settings;

	private final Map<Method, Plan> plans = new ConcurrentHashMap<>();

	private volatile boolean accepting = true;

	/** An aspect over the given collaborators. */
	public TargetLeaseAspect(LeaseService service, LeaseRenewalScheduler scheduler, TargetResolver resolver,
			LeaseOwnerProvider owners, JobSettings settings) {
		this.service = Objects.requireNonNull(service, "service");
		this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
		this.resolver = Objects.requireNonNull(resolver, "resolver");
		this.owners = Objects.requireNonNull(owners, "owners");
		this.settings = Objects.requireNonNull(settings, "settings");
	}

	/**
	 * Stops accepting new leased work (shutdown): a later call that does not join a bound context does not run;
	 * with {@link ConflictPolicy#SKIP} it returns the skip value, with {@link ConflictPolicy#THROW} it throws a
	 * {@link LeaseAcquisitionException} ({@code lease_backend_unavailable}: this instance is going away).
	 */
	public void stopAccepting() {
		this.accepting = false;
	}

	/** Whether new leased work is accepted (false once shutdown began). */
	public boolean isAccepting() {
		return this.accepting;
	}

	/** Runs a {@link TargetLeased} method under its lease. */
	@Around("@annotation(leased)")
	public @Nullable Object around(ProceedingJoinPoint joinPoint, TargetLeased leased) throws Throwable {
		Method method = ((MethodSignature) joinPoint.getSignature()).getMethod();
		Plan plan = this.plans.computeIfAbsent(method, (key) -> Plan.of(key, leased));
		LockIdentity identity = identity(joinPoint, method, plan);
		LeaseContext current = LeaseContext.currentOrNull();
		if (current != null && current.identity().equals(identity)) {
			// re-entrancy: join the context already bound for this identity (no second acquire, renewal or release)
			return joinPoint.proceed();
		}
		if (!this.accepting) {
			if (plan.onConflict == ConflictPolicy.THROW) {
				throw new LeaseAcquisitionException(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.NONE,
						"Not starting " + plan.name + ": the application is shutting down");
			}
			logger.info("Not starting {}: the application is shutting down", plan.name);
			return plan.skipValue();
		}
		LeaseOwner owner;
		try {
			owner = this.owners.currentOwner();
		}
		catch (InvalidLeaseRequestException ex) {
			// e.g. an authenticated principal name that is not a bounded identifier
			throw new LeaseAcquisitionException(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE,
					"Invalid lease owner for " + plan.name + ": " + ex.getMessage());
		}
		LeaseResult result = acquire(identity, plan, owner);
		if (result.code() == ResultCode.LEASE_CONFLICT) {
			if (plan.onConflict == ConflictPolicy.THROW) {
				throw new LeaseConflictException(identity.actorName(), result.retryAfterMs());
			}
			logger.info("Lease conflict, skipping {}: {} is held by another owner", plan.name, identity);
			return plan.skipValue();
		}
		if (!result.isSuccess() || result.lease() == null) {
			throw new LeaseAcquisitionException(result.code(), result.reason(),
					"Could not acquire the target lease for " + plan.name
							+ ((result.detail() != null) ? " (" + result.detail() + ")" : ""));
		}
		LeaseContext context = new LeaseContext(result.lease());
		logger.debug("Lease acquired for {}: {}", plan.name, context);
		return plan.async ? runAsync(joinPoint, context) : runSync(joinPoint, context);
	}

	private LockIdentity identity(ProceedingJoinPoint joinPoint, Method method, Plan plan) {
		Object reference;
		ResolvedTarget target;
		try {
			Object bean = joinPoint.getTarget();
			Method specific = plan.specificMethod(method, bean);
			int parameter = plan.simpleParameterIndex(specific);
			reference = (parameter >= 0) ? joinPoint.getArgs()[parameter] : plan.target
				.getValue(new MethodBasedEvaluationContext(bean, specific, joinPoint.getArgs(), PARAMETER_NAMES));
			target = this.resolver.resolve(plan.targetNamespace, reference);
		}
		catch (RuntimeException ex) {
			throw new LeaseAcquisitionException(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE,
					"Target reference of " + plan.name + " did not resolve to a trusted target", ex);
		}
		try {
			return LockIdentity.of(this.settings.operationClasses(), this.settings.tenantId(),
					this.settings.programId(), target.targetNamespace(), target.targetId(), plan.actor, plan.workflow,
					plan.operationClass);
		}
		catch (InvalidLeaseRequestException ex) {
			throw new LeaseAcquisitionException(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE,
					"Invalid lock identity for " + plan.name + ": " + ex.getMessage());
		}
	}

	private LeaseResult acquire(LockIdentity identity, Plan plan, LeaseOwner owner) {
		long waitMs = Math.min(plan.waitFor.toMillis(), this.settings.maximumWait().toMillis());
		long giveUpAt = System.nanoTime() + waitMs * 1_000_000;
		String executionId = Identifiers.generate("execution");
		String jobId = Identifiers.generate("job");
		String traceId = Identifiers.generate("trace");
		for (int attempt = 0;; attempt++) {
			LeaseResult result = this.service.acquire(identity, owner, plan.ttl, plan.maxLifetime, executionId, jobId,
					traceId, LeaseMetadata.empty());
			long remainingMs = (giveUpAt - System.nanoTime()) / 1_000_000;
			if (result.code() != ResultCode.LEASE_CONFLICT || remainingMs <= 0) {
				return result;
			}
			long backoff = Math.min(1000, 25L << Math.min(attempt, 6));
			if (result.retryAfterMs() > 0) {
				backoff = Math.min(backoff, result.retryAfterMs());
			}
			long sleep = Math.min(remainingMs, Math.max(5, backoff / 2 + ThreadLocalRandom.current().nextLong(backoff / 2 + 1)));
			try {
				Thread.sleep(sleep); // bounded, jittered backoff of the requested wait (contract: no unbounded waiting)
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return result;
			}
		}
	}

	private @Nullable Object runSync(ProceedingJoinPoint joinPoint, LeaseContext context) throws Throwable {
		ThreadCancellation cancellation = new ThreadCancellation(Thread.currentThread(), this.settings.cancellation());
		LeaseRenewalScheduler.Registration registration = this.scheduler.register(context, cancellation);
		try (LeaseContext.Scope scope = LeaseContext.bind(context)) {
			return joinPoint.proceed();
		}
		finally {
			cancellation.finish();
			registration.close();
			release(registration);
		}
	}

	private Object runAsync(ProceedingJoinPoint joinPoint, LeaseContext context) throws Throwable {
		CompletableFuture<Object> result = new CompletableFuture<>();
		AtomicReference<@Nullable CompletionStage<?>> stage = new AtomicReference<>();
		Runnable cancellation = () -> {
			if (this.settings.cancellation() == CancellationMode.INTERRUPT) {
				result.cancel(true);
				cancelStage(stage.get());
			}
		};
		LeaseRenewalScheduler.Registration registration = this.scheduler.register(context, cancellation);
		Object returned;
		try (LeaseContext.Scope scope = LeaseContext.bind(context)) {
			returned = joinPoint.proceed();
		}
		catch (Throwable ex) {
			registration.close();
			release(registration);
			throw ex;
		}
		if (returned == null) {
			registration.close();
			release(registration);
			return null;
		}
		CompletionStage<?> returnedStage = (CompletionStage<?>) returned;
		stage.set(returnedStage);
		returnedStage.whenComplete((value, error) -> {
			registration.close();
			release(registration);
			if (error != null) {
				result.completeExceptionally(error);
			}
			else {
				result.complete(value);
			}
		});
		if (result.isCancelled()) {
			cancelStage(returnedStage);
		}
		return result;
	}

	private static void cancelStage(@Nullable CompletionStage<?> stage) {
		if (stage == null) {
			return;
		}
		try {
			stage.toCompletableFuture().cancel(true);
		}
		catch (UnsupportedOperationException ex) {
			// a stage that cannot be cancelled: the caller's future is cancelled anyway
		}
	}

	private void release(LeaseRenewalScheduler.Registration registration) {
		if (!registration.claimRelease()) {
			return; // shutdown released it already
		}
		LeaseContext context = registration.context();
		LeaseResult released = this.service.release(context.handle());
		if (released.isSuccess()) {
			if (this.accepting) {
				logger.debug("Lease released: {}", context);
			}
			else {
				logger.info("Lease released at shutdown (the job ended): {}", context);
			}
		}
		else if (context.isLost()) {
			logger.debug("Lease of a lost context not released ({}): {}", released.code().wireName(), context);
		}
		else {
			logger.warn("Lease release answered {} for {}; it ends at its expiry", released.code().wireName(), context);
		}
	}

	/** Interrupts the job's thread on loss while (and only while) the method runs on it. */
	private static final class ThreadCancellation implements Runnable {

		private final Thread thread;

		private final CancellationMode mode;

		private boolean running = true;

		private boolean interrupted;

		ThreadCancellation(Thread thread, CancellationMode mode) {
			this.thread = thread;
			this.mode = mode;
		}

		@Override
		public synchronized void run() {
			if (this.running && this.mode == CancellationMode.INTERRUPT) {
				this.interrupted = true;
				this.thread.interrupt();
			}
		}

		/** Called on the job's thread when the method ended: clears an interrupt this cancellation caused. */
		synchronized void finish() {
			this.running = false;
			if (this.interrupted) {
				Thread.interrupted();
			}
		}

	}

	/** What the aspect derives once per method. */
	private static final class Plan {

		final String name;

		final Expression target;

		final String targetNamespace;

		final String actor;

		final String workflow;

		final String operationClass;

		final Duration ttl;

		final Duration maxLifetime;

		final Duration waitFor;

		final ConflictPolicy onConflict;

		final Class<?> returnType;

		final boolean async;

		private Plan(Method method, TargetLeased leased) {
			this.name = method.getDeclaringClass().getSimpleName() + "." + method.getName();
			this.target = PARSER.parseExpression(leased.target());
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

		private volatile @Nullable Class<?> lastTargetClass;

		private volatile @Nullable Method lastSpecific;

		private volatile int simpleParameter = -2;

		/** The most specific method for the target's class (cached for the last class seen). */
		Method specificMethod(Method method, @Nullable Object bean) {
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
		int simpleParameterIndex(Method specific) {
			int index = this.simpleParameter;
			if (index == -2) {
				index = -1;
				String text = this.target.getExpressionString();
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

		static Plan of(Method method, TargetLeased leased) {
			return new Plan(method, leased);
		}

		private Duration duration(String attribute, String text) {
			try {
				return LeaseDurations.parse(text);
			}
			catch (RuntimeException ex) {
				throw new IllegalStateException("@TargetLeased(" + attribute + ") of " + this.name + ": "
						+ ex.getMessage(), ex);
			}
		}

		@Nullable Object skipValue() {
			if (this.returnType == Optional.class) {
				return Optional.empty();
			}
			if (this.async) {
				return CompletableFuture.completedFuture(null);
			}
			return null;
		}

	}

}
