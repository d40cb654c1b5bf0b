package io.starintel.lease.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.util.Assert;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.internal.AsyncAuditPipeline;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.job.LeaseLostEvent;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.testing.internal.LeaseObservations;
import io.starintel.lease.testing.internal.LeaseTestStore;
import io.starintel.lease.testing.internal.MutableBackendClock;

/**
 * Drives the lease of a running {@code @TargetLeased} job from outside the job, on the in-memory store or on Redis
 * (the same calls; {@link AutoConfigureLeaseTest} registers it as a bean):
 *
 * <ul>
 * <li>find the lease a job holds for a target: {@link #awaitLease(String)} (and every lease so far:
 * {@link #leases(String)});</li>
 * <li>end it: {@link #revoke}, {@link #forceRelease}, {@link #expire}, {@link #takeOver} (a competing holder with a
 * higher fencing token);</li>
 * <li>make the lease backend unreachable for the renewer (and every other store call): {@link #backendUnreachable()},
 * or for one lease: {@link #backendUnreachable(HeldLease)};</li>
 * <li>wait, bounded, for the job's cancellation ({@link #awaitCancellation}: its {@code LeaseLostEvent}) and for the
 * job's end ({@link #awaitJobEnded}: the aspect's release call after the method returned).</li>
 * </ul>
 *
 * Administrative calls go through the application's audited store (the {@code LeaseService}), so they are
 * audited as an administrator's would be ({@link #auditEvents()}). The tester's own looks at the backend
 * ({@link #isActive}) use the undecorated store.
 */
public final class TargetLeaseTester {

	/** How long the waits without a timeout argument wait. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

	/** The administrator principal of {@link #revoke} and {@link #forceRelease}. */
	public static final String ADMIN_PRINCIPAL = "lease-test-admin";

	/** The owner principal of {@link #takeOver}'s competing holders. */
	public static final String COMPETITOR_PRINCIPAL = "lease-test-competitor";

	private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(5);

	/** How long {@link #reset()} waits for the audit pipeline to deliver what was submitted before. */
	private static final Duration FLUSH_TIMEOUT = Duration.ofSeconds(5);

	private static final Logger logger = LoggerFactory.getLogger(TargetLeaseTester.class);

	private final LeaseTestStore store;

	private final LeaseService service;

	private final CapturedAuditEvents audit;

	private final @Nullable AsyncAuditPipeline pipeline;

	private final LeaseObservations observations;

	/** The competing holders {@link #takeOver} created since the test method started (released by {@link #reset}). */
	private final List<Competitor> competitors = new CopyOnWriteArrayList<>();

	/**
	 * A tester over the application's {@link LeaseStore} bean as {@link AutoConfigureLeaseTest} wraps it, its
	 * {@link LeaseService} and the captured audit events, without an audit pipeline to wait for (events delivered
	 * synchronously, or no audit).
	 * @throws IllegalStateException when the store is not the test auto-configuration's wrapper
	 */
	public TargetLeaseTester(LeaseStore store, LeaseService service, CapturedAuditEvents audit) {
		this(store, service, audit, null);
	}

	/**
	 * A tester over the application's {@link LeaseStore} bean as {@link AutoConfigureLeaseTest} wraps it, its
	 * {@link LeaseService}, the captured audit events and the audit pipeline that delivers them ({@code null}: audit
	 * off or synchronous): {@link #reset()} waits for it to deliver what was submitted before, and
	 * {@link #awaitJobEnded} for the job's release event.
	 * @throws IllegalStateException when the store is not the test auto-configuration's wrapper
	 */
	public TargetLeaseTester(LeaseStore store, LeaseService service, CapturedAuditEvents audit,
			@Nullable AsyncAuditPipeline pipeline) {
		Assert.notNull(store, "store must not be null");
		Assert.notNull(service, "service must not be null");
		Assert.notNull(audit, "audit must not be null");
		if (!(store instanceof LeaseTestStore testStore)) {
			throw new IllegalStateException("The LeaseStore bean " + store.getClass().getName()
					+ " is not wrapped for tests: is @AutoConfigureLeaseTest on the test class?");
		}
		this.store = testStore;
		this.service = service;
		this.audit = audit;
		this.pipeline = pipeline;
		this.observations = testStore.observations();
	}

	/** Whether the test runs on the in-memory store (backend time under its control). */
	public boolean isInMemory() {
		return this.store.clock() != null;
	}

	/** The application's store, undecorated (the in-memory store or the Redis store). */
	public LeaseStore store() {
		return this.store.delegate();
	}

	/** The audit events of the application, captured since the current test method started. */
	public CapturedAuditEvents auditEvents() {
		return this.audit;
	}

	// ---- finding the leases of jobs

	/** The lease a running job holds for {@code targetId}, waiting up to {@link #DEFAULT_TIMEOUT} for it. */
	public HeldLease awaitLease(String targetId) {
		requireTarget(targetId);
		return awaitLease(targetId, DEFAULT_TIMEOUT);
	}

	/**
	 * The newest lease a job of the application acquired for {@code targetId} and has not released yet (its method is
	 * still running), waiting up to {@code timeout} for one.
	 * @throws AssertionError when no job acquired one in time
	 */
	public HeldLease awaitLease(String targetId, Duration timeout) {
		requireTarget(targetId);
		requireTimeout(timeout);
		return awaitLease((lease) -> lease.targetId().equals(targetId), timeout)
			.orElseThrow(() -> new AssertionError("No job acquired a lease for target '" + targetId + "' within "
					+ timeout + " (leases of that target so far: " + leases(targetId) + holdersOf(targetId) + ")"));
	}

	/**
	 * Why no job may have got the target: its refused acquisitions (audited) and who holds it now (a competing holder
	 * of {@link #takeOver}, another owner); empty when nothing is known.
	 */
	private String holdersOf(String targetId) {
		StringBuilder text = new StringBuilder();
		try {
			flushAudit(Duration.ofSeconds(1));
			List<AuditEvent> refused = this.audit.matching((event) -> event.eventType() == AuditEventType.ACQUIRE
					&& targetId.equals(event.targetId()) && event.resultCode() != ResultCode.LEASE_ACQUIRED);
			if (!refused.isEmpty()) {
				text.append("; acquisitions of that target refused: ")
					.append(refused.stream().map((event) -> event.resultCode().wireName()).toList());
			}
			Map<String, String> holders = new LinkedHashMap<>();
			for (Competitor competitor : this.competitors) {
				if (competitor.lease().targetId().equals(targetId) && isActive(competitor.lease())) {
					holders.put(competitor.lease().leaseId(), "a competing holder from takeOver() ("
							+ COMPETITOR_PRINCIPAL + ", " + competitor.lease() + "): release it (Competitor.release())");
				}
			}
			record Where(ProgramScope scope, String targetNamespace) {
			}
			Set<Where> refusedWhere = new LinkedHashSet<>();
			for (AuditEvent event : refused) {
				ProgramScope scope = event.scope();
				if (scope != null && event.targetNamespace() != null) {
					refusedWhere.add(new Where(scope, event.targetNamespace()));
				}
			}
			for (Where where : refusedWhere) {
				LeasePage page = this.store.delegate()
					.list(new ListRequest(new ListFilter.ByTarget(where.scope(), where.targetNamespace(), targetId),
							null, 20, Competitor.id("corr"), deadline()));
				for (LeaseRecord record : page.leases()) {
					holders.putIfAbsent(record.leaseId(),
							(COMPETITOR_PRINCIPAL.equals(record.owner().principalId()) ? "a competing holder ("
									: "another holder (") + record.owner().principalId() + ", " + new HeldLease(record)
									+ ")");
				}
			}
			if (!holders.isEmpty()) {
				text.append("; the target is held by ").append(holders.values());
			}
		}
		catch (RuntimeException ex) {
			// a message, best effort: the backend may be unreachable
			text.append("; its holders could not be read (").append(ex.getClass().getSimpleName()).append(")");
		}
		return text.toString();
	}

	/** The newest running job's lease matching {@code filter}, waiting up to {@code timeout}; empty if none came. */
	public Optional<HeldLease> awaitLease(Predicate<HeldLease> filter, Duration timeout) {
		Assert.notNull(filter, "filter must not be null");
		requireTimeout(timeout);
		try {
			return this.observations
				.awaitAcquisition((record) -> isJobLease(record)
						&& !this.observations.releaseFuture(record.leaseId()).isDone()
						&& filter.test(new HeldLease(record)), timeout)
				.map(HeldLease::new);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Optional.empty();
		}
	}

	/** Every lease the application's jobs acquired for {@code targetId} since the test method started, oldest first. */
	public List<HeldLease> leases(String targetId) {
		requireTarget(targetId);
		return leases().stream().filter((lease) -> lease.targetId().equals(targetId)).toList();
	}

	/** Every lease the application's jobs acquired since the test method started, oldest first. */
	public List<HeldLease> leases() {
		return this.observations.acquisitions().stream().filter(this::isJobLease).map(HeldLease::new).toList();
	}

	/** The newest lease a job acquired for {@code targetId}, running or not. */
	public Optional<HeldLease> lastLease(String targetId) {
		requireTarget(targetId);
		List<HeldLease> all = leases(targetId);
		return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
	}

	private boolean isJobLease(LeaseRecord record) {
		return !COMPETITOR_PRINCIPAL.equals(record.owner().principalId());
	}

	/** Whether the lease is the active, unexpired lease of its identity at backend time now. */
	public boolean isActive(HeldLease lease) {
		requireLease(lease);
		LeaseResult result = inspect(lease);
		return result.code() == ResultCode.LEASE_INSPECTED && result.lease() != null
				&& result.lease().leaseId().equals(lease.leaseId());
	}

	/** Whether the job's method has returned (the aspect's release of the lease was called). */
	public boolean hasJobEnded(HeldLease lease) {
		requireLease(lease);
		return this.observations.releaseFuture(lease.leaseId()).isDone();
	}

	private LeaseResult inspect(HeldLease lease) {
		return this.store.delegate()
			.inspect(InspectRequest.byLeaseId(lease.identity().scope(), lease.leaseId(), Competitor.id("corr"),
					deadline()));
	}

	// ---- ending a lease from outside

	/**
	 * Revokes the lease as an administrator would (audited {@code target_lease_revoke}); the job's next renewal is
	 * answered {@code lease_lost} and the job is cancelled, its later fenced writes are refused.
	 * @throws AssertionError when the lease is still active afterwards
	 */
	public LeaseResult revoke(HeldLease lease) {
		requireLease(lease);
		return administer(Operation.REVOKE, lease, "revoked by TargetLeaseTester");
	}

	/** Force-releases the lease as an administrator would (audited {@code target_lease_force_release}). */
	public LeaseResult forceRelease(HeldLease lease) {
		requireLease(lease);
		return administer(Operation.FORCE_RELEASE, lease, "force-released by TargetLeaseTester");
	}

	private LeaseResult administer(Operation operation, HeldLease lease, String reason) {
		AdminRequest request = new AdminRequest(operation, lease.identity(), Competitor.id("request"), deadline(),
				lease.leaseId(), lease.fencingToken(), ADMIN_PRINCIPAL, "lease-test-credential", reason);
		LeaseResult result = (operation == Operation.REVOKE) ? this.service.revoke(request)
				: this.service.forceRelease(request);
		// a durable audit sink that cannot write (e.g. the admin module's Redis stream without Redis) answers
		// outcome-unknown after the store's transition: what counts is the backend
		if (!result.isSuccess() && isActive(lease)) {
			throw new AssertionError(operation.wireName() + " of " + lease + " answered " + result.code().wireName()
					+ "/" + result.reason().wireName() + " and the lease is still active");
		}
		return result;
	}

	/** Expires the lease, bounded by {@link #DEFAULT_TIMEOUT} past its expiry. */
	public void expire(HeldLease lease) {
		requireLease(lease);
		expire(lease, DEFAULT_TIMEOUT);
	}

	/**
	 * Makes the lease expire at the backend.
	 * <ul>
	 * <li>In-memory store: the store decides one call at a backend time just past the lease's current expiry, and
	 * ends it as {@code expired} (as if the job's process had been paused that long); the job's next renewal is
	 * answered {@code lease_lost}. Nothing else changes: only that call sees the later time, the calls other threads
	 * make meanwhile (other jobs' renewals, acquisitions, fenced commits) are decided at the real time.</li>
	 * <li>Redis: nobody controls Redis's clock, so the lease is left to expire for real: its renewals (and the job's
	 * other calls naming it) are made unreachable until the backend reports it gone, at most its remaining TTL plus
	 * {@code timeout}. The job's renewer declares the lease lost before that ({@code backend_unreachable}, at its
	 * safety margin), as it would in production; keep the TTL short in such a test.</li>
	 * </ul>
	 * @throws AssertionError when the lease is still active afterwards
	 */
	public void expire(HeldLease lease, Duration timeout) {
		requireLease(lease);
		requireTimeout(timeout);
		LeaseResult current = inspect(lease);
		if (current.code() != ResultCode.LEASE_INSPECTED || current.lease() == null) {
			return;
		}
		Instant expiresAt = current.lease().expiresAt();
		MutableBackendClock clock = this.store.clock();
		if (clock != null) {
			Duration ahead = Duration.between(clock.instant(), expiresAt).plusMillis(1);
			// the store ends the lease as expired when a call sees it past its expiry: one inspect, ahead of time on
			// this thread only (the other jobs' calls meanwhile are decided at the real time)
			LeaseResult seen = clock.ahead(ahead.isNegative() ? Duration.ZERO : ahead,
					() -> this.store.delegate()
						.inspect(InspectRequest.byLeaseId(lease.identity().scope(), lease.leaseId(),
								Competitor.id("corr"), clock.instant().plus(OPERATION_TIMEOUT))));
			if (seen.code() == ResultCode.LEASE_INSPECTED || isActive(lease)) {
				throw new AssertionError(lease + " is still active after backend time passed its expiry");
			}
			return;
		}
		Duration remaining = Duration.between(Instant.now(), expiresAt);
		Duration bound = (remaining.isNegative() ? Duration.ZERO : remaining).plus(timeout);
		this.store.setUnreachable(lease.leaseId(), true);
		try {
			Awaitility.await("expiry of " + lease)
				.atMost(bound)
				.pollDelay(Duration.ZERO)
				.pollInterval(Duration.ofMillis(25))
				.until(() -> !isActive(lease));
		}
		catch (ConditionTimeoutException ex) {
			throw new AssertionError(lease + " did not expire within " + bound, ex);
		}
		finally {
			this.store.setUnreachable(lease.leaseId(), false);
		}
	}

	/**
	 * A competing holder takes the target over: the job's lease is force-released (if still active) and the same lock
	 * identity acquired by another owner ({@link #COMPETITOR_PRINCIPAL}), with the job's TTL and lifetime. Its
	 * fencing token is higher than the job's; the job's next renewal is answered {@code lease_lost}. A competitor the
	 * test does not release is released before the next test method ({@link #reset()}).
	 * @throws AssertionError when the acquisition is not granted or its token is not higher
	 */
	public Competitor takeOver(HeldLease lease) {
		requireLease(lease);
		if (isActive(lease)) {
			administer(Operation.FORCE_RELEASE, lease, "taken over by a competing holder (TargetLeaseTester)");
		}
		LeaseRecord record = lease.record();
		LeaseOwner owner = new LeaseOwner(COMPETITOR_PRINCIPAL, "lease-test", "none",
				"lease-test-competitor-" + Competitor.id("i").substring(7, 15));
		AcquireRequest request = new AcquireRequest(lease.identity(), Competitor.id("request"), deadline(), owner,
				record.ttlMs(), record.maximumLifetimeMs(), Competitor.id("execution"), Competitor.id("job"),
				Competitor.id("trace"), LeaseMetadata.empty());
		LeaseResult acquired = this.service.acquire(request);
		if (acquired.code() != ResultCode.LEASE_ACQUIRED || acquired.lease() == null) {
			throw new AssertionError("The competing holder could not acquire " + lease.identity() + ": "
					+ acquired.code().wireName() + "/" + acquired.reason().wireName());
		}
		Competitor competitor = new Competitor(this.service, new HeldLease(acquired.lease()), OPERATION_TIMEOUT);
		this.competitors.add(competitor);
		if (acquired.lease().fencingToken() <= lease.fencingToken()) {
			throw new AssertionError("The competing holder's token " + acquired.lease().fencingToken()
					+ " is not above the job's " + lease.fencingToken());
		}
		return competitor;
	}

	// ---- an unreachable backend

	/**
	 * Makes the lease backend unreachable for every store call of the application (renewals, acquisitions, releases,
	 * fenced-commit authorizations, admin calls) until the returned {@link Outage} is closed: they answer
	 * {@code lease_backend_unavailable} / {@code backend_unreachable}. A running job's renewer retries, then declares
	 * the lease lost ({@code backend_unreachable}) at its safety margin, before expiry.
	 */
	public Outage backendUnreachable() {
		this.store.setUnreachable(true);
		return new Outage(() -> this.store.setUnreachable(false));
	}

	/** As {@link #backendUnreachable()}, for the calls naming one lease only (renew, release, commit, attached keys). */
	public Outage backendUnreachable(HeldLease lease) {
		requireLease(lease);
		this.store.setUnreachable(lease.leaseId(), true);
		return new Outage(() -> this.store.setUnreachable(lease.leaseId(), false));
	}

	// ---- waiting for the job

	/**
	 * The job's {@link LeaseLostEvent}, waiting up to {@link #DEFAULT_TIMEOUT} or, for a longer TTL, 40 % of the TTL
	 * plus 5 s: a job learns of its loss at its next renewal, about a third of the TTL after the last one.
	 */
	public LeaseLostEvent awaitCancellation(HeldLease lease) {
		requireLease(lease);
		return awaitCancellation(lease, renewalBound(lease));
	}

	private static Duration renewalBound(HeldLease lease) {
		Duration bound = Duration.ofMillis(lease.record().ttlMs() * 2 / 5).plusSeconds(5);
		return (bound.compareTo(DEFAULT_TIMEOUT) > 0) ? bound : DEFAULT_TIMEOUT;
	}

	/**
	 * Waits (bounded) until the lease's job was told its lease is lost: the renewal scheduler published its
	 * {@link LeaseLostEvent} and, with {@code starintel.lease.job.cancellation=interrupt} (the default), interrupts the
	 * method right after. Returns the event (its reason: {@code stale_lease}, {@code backend_unreachable}, ...). The
	 * scheduler notices at the lease's next renewal (about a third of the TTL); a job that ended first (e.g. its
	 * fenced commit was refused and it returned) gets no event.
	 * @throws AssertionError when no event came in time
	 */
	public LeaseLostEvent awaitCancellation(HeldLease lease, Duration timeout) {
		requireLease(lease);
		requireTimeout(timeout);
		return await(this.observations.lostFuture(lease.leaseId()), timeout,
				() -> "The job of " + lease + " was not cancelled within " + timeout + " (lease still active: "
						+ isActive(lease) + ", job ended: " + hasJobEnded(lease) + ")");
	}

	/** Waits until the job's method has returned, as long as {@link #awaitCancellation(HeldLease)} would. */
	public void awaitJobEnded(HeldLease lease) {
		requireLease(lease);
		awaitJobEnded(lease, renewalBound(lease));
	}

	/**
	 * Waits (bounded) until the job's method has returned: the aspect releases the lease (or tries to) right after.
	 * With audit on, it also waits for the {@code target_lease_release} event of that call to reach
	 * {@link #auditEvents()}, so that the job's events are all captured within the test method that ran it (none is
	 * delivered into the next test).
	 * @throws AssertionError when it did not return in time
	 */
	public void awaitJobEnded(HeldLease lease, Duration timeout) {
		requireLease(lease);
		requireTimeout(timeout);
		long deadline = System.nanoTime() + timeout.toNanos();
		await(this.observations.releaseFuture(lease.leaseId()), timeout,
				() -> "The job of " + lease + " did not end within " + timeout + " (cancelled: "
						+ this.observations.lostFuture(lease.leaseId()).isDone() + ")");
		awaitReleaseEvent(lease, timeout, deadline);
	}

	/**
	 * The store saw the job's release call below the audit layer, which submits the call's event right after it
	 * returns: waits (until {@code deadline}, a {@link System#nanoTime()}) for that event to be captured, when the
	 * lease's events reach the captured ones at all (its acquisition was captured: the application's audited
	 * facade, audit on).
	 */
	private void awaitReleaseEvent(HeldLease lease, Duration timeout, long deadline) {
		if (this.pipeline == null || this.audit.isForgotten(lease.leaseId())) {
			return;
		}
		flushAudit(remaining(deadline));
		if (this.audit.matching((event) -> lease.leaseId().equals(event.leaseId())).isEmpty()) {
			return;
		}
		if (this.audit
			.await((event) -> event.eventType() == AuditEventType.RELEASE && lease.leaseId().equals(event.leaseId()),
					remaining(deadline))
			.isEmpty()) {
			throw new AssertionError("The job of " + lease + " ended, but the audit event of its release did not "
					+ "reach the captured audit events within " + timeout + " (audit queue full or blocked?)");
		}
	}

	private static Duration remaining(long deadline) {
		return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
	}

	private static <T> @Nullable T await(CompletableFuture<T> future, Duration timeout,
			java.util.function.Supplier<String> message) {
		try {
			return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			throw new AssertionError(message.get());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError("Interrupted: " + message.get());
		}
		catch (ExecutionException ex) {
			throw new AssertionError(message.get(), ex.getCause());
		}
	}

	// ---- between tests

	/**
	 * Before each test method: ends every outage, releases the competing holders {@link #takeOver} created, and
	 * forgets observed leases and captured audit events. The audit events submitted before are delivered first
	 * (waiting for the pipeline, bounded), and those of the leases seen so far are not captured any more, so that no
	 * event of an earlier test shows up in the next one.
	 */
	public void reset() {
		this.store.reachable();
		releaseCompetitors();
		this.audit.forgetLeases(this.observations.acquisitions().stream().map(LeaseRecord::leaseId).toList());
		if (!flushAudit(FLUSH_TIMEOUT)) {
			logger.warn("The audit pipeline did not deliver the events of the previous test within {}: "
					+ "events without a lease (refused acquisitions) may show up in the next test", FLUSH_TIMEOUT);
		}
		this.observations.clear();
		this.audit.clear();
	}

	/**
	 * Releases the competing holders' leases (the undecorated store: a cleanup, not an application event), so that
	 * none carries its target over into the next test. One already ended or released is answered so; ignored.
	 */
	private void releaseCompetitors() {
		for (Competitor competitor : this.competitors) {
			try {
				this.store.delegate()
					.release(new ReleaseRequest(competitor.lease().handle(), Competitor.id("request"), deadline()));
			}
			catch (RuntimeException ex) {
				logger.warn("Could not release the competing holder {} ({})", competitor.lease(),
						ex.getClass().getSimpleName());
			}
		}
		this.competitors.clear();
	}

	/** Waits, at most {@code timeout}, until the audit events submitted so far were delivered; true without audit. */
	private boolean flushAudit(Duration timeout) {
		return this.pipeline == null || this.pipeline.flush(timeout);
	}

	/** Ends every outage (after each test method). */
	public void restoreBackend() {
		this.store.reachable();
	}

	// misuse is rejected at once (IllegalArgumentException naming the parameter), never after a wait

	private static void requireTarget(@Nullable String targetId) {
		Assert.notNull(targetId, "targetId must not be null");
	}

	private static void requireLease(@Nullable HeldLease lease) {
		Assert.notNull(lease, "lease must not be null");
	}

	private static void requireTimeout(@Nullable Duration timeout) {
		Assert.notNull(timeout, "timeout must not be null");
		Assert.isTrue(!timeout.isNegative(), "timeout must not be negative");
	}

	private static Instant deadline() {
		return Instant.now().plus(OPERATION_TIMEOUT);
	}

}
