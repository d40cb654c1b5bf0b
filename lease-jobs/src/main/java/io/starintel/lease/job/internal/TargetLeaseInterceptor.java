package io.starintel.lease.job.internal;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.MethodClassKey;

import io.starintel.lease.context.AttachedKeyOperations;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.job.ConflictPolicy;
import io.starintel.lease.job.LeaseAcquisitionException;
import io.starintel.lease.job.LeaseConflictException;
import io.starintel.lease.job.LeaseOwnerProvider;
import io.starintel.lease.job.MisuseMode;
import io.starintel.lease.job.TargetLeased;
import io.starintel.lease.job.TargetResolver;

/**
 * The {@link TargetLeased} interceptor: acquire, bind the {@link LeaseContext}, renew, cancel on loss, release. It
 * runs behind {@link TargetLeasedAdvisor} (a static annotation pointcut, as Spring's own {@code @Async} and
 * {@code @Transactional} advisors: no per-call pointcut match, no reflective advice call). The annotation is read
 * once per method and target class ({@link TargetLeasePlan}), the lease acquired by {@link LeaseAcquirer} and the
 * call run by {@link LeasedInvocation}.
 *
 * <p>Contract rules enforced here: a call that joins a context already bound for the same identity runs without a
 * second lease (re-entrancy); an acquisition that is not {@code lease_acquired} never runs the method; after
 * shutdown began no new leased work starts.
 */
public class TargetLeaseInterceptor implements MethodInterceptor {

	private static final Logger logger = LoggerFactory.getLogger(TargetLeaseInterceptor.class);

	private final TargetResolver resolver;

	private final LeaseOwnerProvider owners;

	private final JobSettings settings;

	private final AttachedKeyOperations attachedKeys;

	private final LeaseAcquirer acquirer;

	private final LeasedInvocation invocation;

	private final Map<MethodClassKey, TargetLeasePlan> plans = new ConcurrentHashMap<>();

	private volatile boolean accepting = true;

	/** An interceptor over the given collaborators. */
	public TargetLeaseInterceptor(LeaseService service, LeaseRenewalScheduler scheduler, TargetResolver resolver,
			LeaseOwnerProvider owners, JobSettings settings) {
		Objects.requireNonNull(service, "service");
		Objects.requireNonNull(scheduler, "scheduler");
		this.resolver = Objects.requireNonNull(resolver, "resolver");
		this.owners = Objects.requireNonNull(owners, "owners");
		this.settings = Objects.requireNonNull(settings, "settings");
		this.attachedKeys = service;
		this.acquirer = new LeaseAcquirer(service, settings);
		this.invocation = new LeasedInvocation(service, scheduler, settings.cancellation(), this::isAccepting);
	}

	/**
	 * The start-up check that names the bean and method when a {@code @TargetLeased} bean's class is final (register
	 * it as a static bean, so that it runs before the auto-proxy creator).
	 */
	public static BeanPostProcessor finalClassCheck() {
		return new FinalLeasedClassCheck();
	}

	/**
	 * The start-up checks of every {@code @TargetLeased} method once the singletons exist: durations against the
	 * policy and {@code maximumWait}, and misuse the interceptor can never intercept ({@code misuse}: fail or warn).
	 */
	public static SmartInitializingSingleton startupChecks(LeasePolicy policy, Duration maximumWait,
			MisuseMode misuse) {
		return new TargetLeasedVerifier(policy, maximumWait, misuse);
	}

	/**
	 * The bounded graceful shutdown of this interceptor's jobs: stop taking new leased work, cancel running jobs and
	 * release their leases within {@code timeout} (a lifecycle stopping before the backend's connections close).
	 */
	public SmartLifecycle shutdown(LeaseRenewalScheduler scheduler, LeaseService service, Duration timeout) {
		return new LeasedJobsShutdown(this, scheduler, service, timeout);
	}

	/**
	 * Stops accepting new leased work (shutdown): a later call that does not join a bound context does not run;
	 * with {@link ConflictPolicy#SKIP} it returns the skip value, with {@link ConflictPolicy#THROW} it throws a
	 * {@link LeaseAcquisitionException} ({@code lease_backend_unavailable}: this instance is going away).
	 */
	public void stopAccepting() {
		this.accepting = false;
	}

	/**
	 * Accepts new leased work again: a stopped context that is started again (a cached test context that Spring
	 * paused and reuses, or {@code context.stop()} then {@code start()}).
	 */
	public void startAccepting() {
		this.accepting = true;
	}

	/** Whether new leased work is accepted (false once shutdown began). */
	public boolean isAccepting() {
		return this.accepting;
	}

	/** Runs a {@link TargetLeased} method under its lease; the annotation is read once ({@link #plan}). */
	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Method method = invocation.getMethod();
		Object target = invocation.getThis();
		TargetLeasePlan plan = plan(method, target);
		LockIdentity identity = plan.identity(method, target, invocation.getArguments(), this.resolver, this.settings);
		LeaseContext current = LeaseContext.currentOrNull();
		if (current != null && current.identity().equals(identity)) {
			// re-entrancy: join the context already bound for this identity (no second acquire, renewal or release)
			return invocation.proceed();
		}
		if (!this.accepting) {
			if (plan.onConflict == ConflictPolicy.THROW) {
				throw new LeaseAcquisitionException(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.NONE,
						"Not starting " + plan.name + ": the application is shutting down");
			}
			logger.info("Not starting {}: the application is shutting down", plan.name);
			return plan.skipValue();
		}
		LeaseResult result = this.acquirer.acquire(identity, plan, owner(plan));
		if (result.code() == ResultCode.LEASE_CONFLICT) {
			if (plan.onConflict == ConflictPolicy.THROW) {
				throw new LeaseConflictException(identity.actorName(), result.retryAfterMs());
			}
			// DEBUG: a skip is the routine outcome of workers racing for a target, and its audit event records it
			logger.debug("Lease conflict, skipping {}: {} is held by another owner", plan.name, identity);
			return plan.skipValue();
		}
		if (!result.isSuccess() || result.lease() == null) {
			throw new LeaseAcquisitionException(result.code(), result.reason(),
					"Could not acquire the target lease for " + plan.name
							+ ((result.detail() != null) ? " (" + result.detail() + ")" : ""));
		}
		LeaseContext context = new LeaseContext(result.lease(), this.attachedKeys);
		logger.debug("Lease acquired for {}: {}", plan.name, context);
		return this.invocation.proceed(invocation, context, plan.async);
	}

	/**
	 * The plan of a method on a target class: the {@link TargetLeased} annotation the pointcut matched, on the most
	 * specific method of the target's class, else on the called method ({@link TargetLeasedAdvisor}'s pointcut
	 * matches either).
	 */
	private TargetLeasePlan plan(Method method, @Nullable Object target) {
		Class<?> targetClass = (target != null) ? target.getClass() : method.getDeclaringClass();
		MethodClassKey key = new MethodClassKey(method, targetClass);
		TargetLeasePlan plan = this.plans.get(key);
		return (plan != null) ? plan : this.plans.computeIfAbsent(key, (k) -> {
			TargetLeased leased = AopUtils.getMostSpecificMethod(method, targetClass).getAnnotation(TargetLeased.class);
			if (leased == null) {
				leased = method.getAnnotation(TargetLeased.class);
			}
			if (leased == null) {
				throw new IllegalStateException("@TargetLeased interceptor on " + method + " without the annotation");
			}
			return new TargetLeasePlan(method, leased);
		});
	}

	private LeaseOwner owner(TargetLeasePlan plan) {
		try {
			return this.owners.currentOwner();
		}
		catch (InvalidLeaseRequestException ex) {
			// e.g. an authenticated principal name that is not a bounded identifier
			throw new LeaseAcquisitionException(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE,
					"Invalid lease owner for " + plan.name + ": " + ex.getMessage());
		}
	}

}
