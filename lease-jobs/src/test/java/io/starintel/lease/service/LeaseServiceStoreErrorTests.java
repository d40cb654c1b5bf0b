package io.starintel.lease.service;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.ActivePrograms;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.store.DelegatingStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A user's {@code LeaseStore} that throws an {@link Error} (an {@link AssertionError}, a {@link LinkageError}) or an
 * exception: every call is still a typed result, every observation stops (the handler's long task timer
 * {@code starintel.lease.operation.active} ends at zero) and the timer's {@code error} tag names the class of what the
 * store threw, never its message. Only a {@link VirtualMachineError} is rethrown, after the observation stopped.
 */
class LeaseServiceStoreErrorTests {

	private static final LockIdentity IDENTITY = LockIdentity.of("tenant-main", "program-a", "starintel-target",
			"target_svc", "usernamegen", "default", "default");

	private static final ProgramScope SCOPE = IDENTITY.scope();

	private static final String MESSAGE = "secret-key-in-message";

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private final ObservationRegistry observations = ObservationRegistry.create();

	private final FaultyStore store = new FaultyStore();

	private final LeaseService service;

	LeaseServiceStoreErrorTests() {
		// as Spring Boot registers it: the operation timers are the observations' meters
		this.observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(this.meters));
		this.service = new LeaseService(this.store, Clock.systemUTC(), Duration.ofSeconds(5), this.meters,
				this.observations);
	}

	@Test
	void anAssertionErrorOfTheStoreIsATypedResultOnEveryVerbAndEveryObservationStops() {
		LeaseRecord held = acquire().lease();
		this.store.failure = new AssertionError(MESSAGE);
		assertThat(acquire().code()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		assertThat(this.service.renew(renewal(held)).code()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		assertThat(this.service.renewAll(List.of(renewal(held), renewal(held)))).extracting(LeaseResult::code)
			.containsExactly(ResultCode.LEASE_OUTCOME_UNKNOWN, ResultCode.LEASE_OUTCOME_UNKNOWN);
		assertThat(this.service.release(new ReleaseRequest(held.handle(), id(), deadline())).code())
			.isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		assertThat(this.service.inspect(InspectRequest.byIdentity(IDENTITY, id(), deadline())).code())
			.isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(this.service.probe(IDENTITY).code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(this.service.resolve(ResolveRequest.of(acquireRequest(), deadline())).code())
			.isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(this.service.authorizeCommit(new CommitRequest(held.handle(), id(), deadline())).code())
			.isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		LeasePage page = this.service.list(list());
		assertThat(page.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(page.leases()).isEmpty();
		assertThat(this.service.putAttached(new AttachPutRequest(held.handle(), "progress", "1", id(), deadline()))
			.code()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		assertThat(this.service.deleteAttached(new AttachDeleteRequest(held.handle(), "progress", id(), deadline()))
			.code()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		assertThat(this.service.getAttached(new AttachGetRequest(SCOPE, "progress", id(), deadline())).code())
			.isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		AttachmentResult names = this.service
			.listAttached(new AttachListRequest(SCOPE, held.leaseId(), id(), deadline()));
		assertThat(names.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(this.service.activePrograms(10).status()).isEqualTo(ActivePrograms.Status.BACKEND_UNAVAILABLE);
		assertThat(this.service.sweepExpired(new SweepRequest(SCOPE, 10, deadline())).status())
			.isEqualTo(SweepResult.Status.BACKEND_UNAVAILABLE);

		assertThat(activeTasks()).isZero();
		assertThat(count("list", "lease_backend_unavailable", "AssertionError")).isEqualTo(1);
		assertThat(count("attach_get", "lease_backend_unavailable", "AssertionError")).isEqualTo(1);
		assertThat(count("attach_put", "lease_outcome_unknown", "AssertionError")).isEqualTo(1);
		assertThat(count("acquire", "lease_outcome_unknown", "AssertionError")).isEqualTo(1);
		assertThat(count("renew", "lease_outcome_unknown", "AssertionError")).isEqualTo(3);
		assertThat(count("probe", "lease_backend_unavailable", "AssertionError")).isEqualTo(1);
		assertThat(tagValues()).noneMatch((value) -> value.contains(MESSAGE));
	}

	/** Before: {@code code="lease_outcome_unknown",error="none"}: the exception was never the observation's error. */
	@Test
	void theErrorTagNamesTheClassOfWhatTheStoreThrewNeverItsMessage() {
		acquire();
		this.store.failure = new IllegalStateException(MESSAGE);
		assertThat(acquire().code()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		assertThat(count("acquire", "lease_acquired", "none")).isEqualTo(1);
		assertThat(count("acquire", "lease_outcome_unknown", "IllegalStateException")).isEqualTo(1);
		assertThat(this.meters.find(LeaseService.OPERATION_TIMER).tag("error", "none")
			.tag("code", "lease_outcome_unknown").timer()).isNull();
		this.store.failure = new NoClassDefFoundError(MESSAGE);
		assertThat(this.service.inspect(InspectRequest.byIdentity(IDENTITY, id(), deadline())).code())
			.isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(count("inspect", "lease_backend_unavailable", "NoClassDefFoundError")).isEqualTo(1);
		assertThat(tagValues()).noneMatch((value) -> value.contains(MESSAGE));
	}

	/** A VirtualMachineError is not a failed call: it is rethrown, once the observation stopped with it as error. */
	@Test
	void aVirtualMachineErrorIsRethrownAfterTheObservationStopped() {
		LeaseRecord held = acquire().lease();
		OutOfMemoryError oom = new OutOfMemoryError("test");
		this.store.failure = oom;
		assertThatThrownBy(this::acquire).isSameAs(oom);
		assertThatThrownBy(() -> this.service.list(list())).isSameAs(oom);
		assertThatThrownBy(
				() -> this.service.getAttached(new AttachGetRequest(SCOPE, "progress", id(), deadline())))
			.isSameAs(oom);
		assertThatThrownBy(() -> this.service.renewAll(List.of(renewal(held), renewal(held)))).isSameAs(oom);
		assertThatThrownBy(() -> this.service.activePrograms(10)).isSameAs(oom);
		assertThat(activeTasks()).isZero();
		assertThat(count("acquire", "lease_outcome_unknown", "OutOfMemoryError")).isEqualTo(1);
		assertThat(count("list", "lease_backend_unavailable", "OutOfMemoryError")).isEqualTo(1);
		assertThat(count("attach_get", "lease_backend_unavailable", "OutOfMemoryError")).isEqualTo(1);
		assertThat(count("renew", "lease_outcome_unknown", "OutOfMemoryError")).isEqualTo(2);
	}

	private long activeTasks() {
		return this.meters.find(LeaseService.OPERATION_TIMER + ".active")
			.longTaskTimers()
			.stream()
			.mapToLong(LongTaskTimer::activeTasks)
			.sum();
	}

	private long count(String operation, String code, String error) {
		Timer timer = this.meters.find(LeaseService.OPERATION_TIMER)
			.tag("operation", operation)
			.tag("code", code)
			.tag("error", error)
			.timer();
		return (timer != null) ? timer.count() : 0;
	}

	private List<String> tagValues() {
		return this.meters.getMeters()
			.stream()
			.map(Meter::getId)
			.flatMap((id) -> id.getTags().stream())
			.map((tag) -> tag.getValue())
			.toList();
	}

	private String id() {
		return this.service.newId();
	}

	private Instant deadline() {
		return this.service.deadline();
	}

	private AcquireRequest acquireRequest() {
		return AcquireRequest.builder(IDENTITY, new LeaseOwner("prn_a", "client_a", "key_a", "instance_a"))
			.ttl(Duration.ofSeconds(30))
			.maximumLifetime(Duration.ofMinutes(5))
			.build(id(), deadline());
	}

	private LeaseResult acquire() {
		return this.service.acquire(acquireRequest());
	}

	private RenewRequest renewal(LeaseRecord lease) {
		return new RenewRequest(lease.handle(), id(), deadline());
	}

	private ListRequest list() {
		return new ListRequest(new ListFilter.ByProgram(SCOPE), null, 10, id(), deadline());
	}

	/** A user's store over the in-memory one that throws {@link #failure} on every call once it is set. */
	static final class FaultyStore extends DelegatingStore {

		volatile Throwable failure;

		private void failIfAsked() {
			Throwable failure = this.failure;
			if (failure instanceof Error error) {
				throw error;
			}
			if (failure != null) {
				throw (RuntimeException) failure;
			}
		}

		@Override
		public LeaseResult acquire(AcquireRequest request) {
			failIfAsked();
			return super.acquire(request);
		}

		@Override
		public LeaseResult renew(RenewRequest request) {
			failIfAsked();
			return super.renew(request);
		}

		@Override
		public List<LeaseResult> renewAll(List<RenewRequest> requests) {
			failIfAsked();
			return super.renewAll(requests);
		}

		@Override
		public LeaseResult release(ReleaseRequest request) {
			failIfAsked();
			return super.release(request);
		}

		@Override
		public LeaseResult inspect(InspectRequest request) {
			failIfAsked();
			return super.inspect(request);
		}

		@Override
		public LeasePage list(ListRequest request) {
			failIfAsked();
			return super.list(request);
		}

		@Override
		public LeaseResult authorizeCommit(CommitRequest request) {
			failIfAsked();
			return super.authorizeCommit(request);
		}

		@Override
		public LeaseResult resolve(ResolveRequest request) {
			failIfAsked();
			return super.resolve(request);
		}

		@Override
		public AttachmentResult putAttached(AttachPutRequest request) {
			failIfAsked();
			return this.delegate.putAttached(request);
		}

		@Override
		public AttachmentResult getAttached(AttachGetRequest request) {
			failIfAsked();
			return this.delegate.getAttached(request);
		}

		@Override
		public AttachmentResult deleteAttached(AttachDeleteRequest request) {
			failIfAsked();
			return this.delegate.deleteAttached(request);
		}

		@Override
		public AttachmentResult listAttached(AttachListRequest request) {
			failIfAsked();
			return this.delegate.listAttached(request);
		}

		@Override
		public ActivePrograms activePrograms(int limit, Instant deadlineAt) {
			failIfAsked();
			return this.delegate.activePrograms(limit, deadlineAt);
		}

		@Override
		public SweepResult sweepExpired(SweepRequest request) {
			failIfAsked();
			return this.delegate.sweepExpired(request);
		}

	}

}
