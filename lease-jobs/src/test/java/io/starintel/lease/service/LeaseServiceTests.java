package io.starintel.lease.service;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.DelegatingStore;
import io.starintel.lease.store.OffsetClock;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link LeaseService}: typed results only, metrics and observations tagged by operation and code. */
class LeaseServiceTests {

	private static final LockIdentity IDENTITY = LockIdentity.of("tenant-main", "program-a", "starintel-target",
			"target_svc", "usernamegen", "default", "default");

	private static final LeaseOwner OWNER = new LeaseOwner("prn_a", "client_a", "key_a", "instance_a");

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private final List<Observation.Context> observed = new CopyOnWriteArrayList<>();

	private final ObservationRegistry observations = ObservationRegistry.create();

	LeaseServiceTests() {
		// as Spring Boot registers it: the operation timers are the observations' meters
		this.observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(this.meters));
		this.observations.observationConfig().observationHandler(new ObservationHandler<Observation.Context>() {

			@Override
			public void onStop(Observation.Context context) {
				LeaseServiceTests.this.observed.add(context);
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
	}

	private LeaseService service(io.starintel.lease.store.LeaseStore store) {
		return new LeaseService(store, Clock.systemUTC(), Duration.ofSeconds(5), this.meters, this.observations);
	}

	private static AcquireRequest.Builder request() {
		return AcquireRequest.builder(IDENTITY, OWNER).ttl(Duration.ofSeconds(30)).maximumLifetime(Duration.ofMinutes(5));
	}

	private static LeaseResult acquire(LeaseService service) {
		return service.acquire(request().build(service.newId(), service.deadline()));
	}

	private static RenewRequest renewal(LeaseService service, LeaseRecord lease) {
		return new RenewRequest(lease.handle(), service.newId(), service.deadline());
	}

	private static ReleaseRequest release(LeaseService service, LeaseRecord lease) {
		return new ReleaseRequest(lease.handle(), service.newId(), service.deadline());
	}

	@Test
	void acquireRenewReleaseAreObservedAndTimedByOperationAndCode() {
		LeaseService service = service(new InMemoryLeaseStore());
		LeaseResult acquired = acquire(service);
		assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(acquire(service).code()).isEqualTo(ResultCode.LEASE_CONFLICT);
		assertThat(service.renew(renewal(service, acquired.lease())).code()).isEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(service.release(release(service, acquired.lease())).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertThat(this.meters.get(LeaseService.OPERATION_TIMER).tag("operation", "acquire")
			.tag("code", "lease_conflict").timer().count()).isEqualTo(1);
		assertThat(this.observed).hasSize(4);
		assertThat(this.observed).allSatisfy((context) -> {
			assertThat(context.getName()).isEqualTo(LeaseService.OBSERVATION);
			assertThat(context.getLowCardinalityKeyValues().stream().map((kv) -> kv.getKey()))
				.containsExactlyInAnyOrder("operation", "code");
			assertThat(context.getHighCardinalityKeyValues()).isEmpty();
		});
	}

	/**
	 * Contract: a failure after submission is outcome-unknown (resolve by request id): a store that throws on a
	 * mutation may have committed it. Reads that throw are backend-unavailable.
	 */
	@Test
	void aStoreThatThrowsOnAMutationIsAnsweredOutcomeUnknownAndOnAReadBackendUnavailable() {
		LeaseRecord held = acquire(service(new InMemoryLeaseStore())).lease();
		LeaseService service = service(new DelegatingStore() {
			@Override
			public LeaseResult acquire(AcquireRequest request) {
				throw new IllegalStateException("RedisConnectionFailureException: 10.0.0.1:6379");
			}

			@Override
			public LeaseResult renew(RenewRequest request) {
				throw new IllegalStateException("timeout");
			}

			@Override
			public LeaseResult release(ReleaseRequest request) {
				throw new IllegalStateException("timeout");
			}

			@Override
			public LeaseResult inspect(InspectRequest request) {
				throw new IllegalStateException("timeout");
			}
		});
		LeaseResult result = acquire(service);
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		assertThat(result.reason()).isEqualTo(Reason.BACKEND_UNREACHABLE);
		assertThat(service.renew(renewal(service, held)).code()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		assertThat(service.release(release(service, held)).code()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		assertThat(service.renewAll(List.of(renewal(service, held), renewal(service, held))))
			.extracting(LeaseResult::code)
			.containsExactly(ResultCode.LEASE_OUTCOME_UNKNOWN, ResultCode.LEASE_OUTCOME_UNKNOWN);
		assertThat(service.inspect(InspectRequest.byIdentity(IDENTITY, service.newId(), service.deadline())).code())
			.isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
	}

	/** The request records refuse invalid input when built; a store that throws on invalid input is typed. */
	@Test
	void invalidInputIsAnsweredInvalidRequestNamingTheField() {
		assertThatThrownBy(() -> request().execution("not valid!", "job_1", "trace_1").build("request_1",
				Instant.now().plusSeconds(5)))
			.isInstanceOf(InvalidLeaseRequestException.class)
			.hasMessageContaining("execution_id");
		LeaseService service = service(new DelegatingStore() {
			@Override
			public LeaseResult acquire(AcquireRequest request) {
				throw new InvalidLeaseRequestException("metadata", "too large");
			}
		});
		LeaseResult result = acquire(service);
		assertThat(result.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(result.detail()).contains("metadata");
	}

	/** One request, one result: the service does not resolve (the job's acquirer does; the worker's client does). */
	@Test
	void anOutcomeUnknownAcquireIsAnsweredAsTheStoreAnswered() {
		LeaseService service = service(new DelegatingStore() {
			@Override
			public LeaseResult acquire(AcquireRequest request) {
				this.delegate.acquire(request); // committed, but the reply is "lost"
				return LeaseResult.failure(ResultCode.LEASE_OUTCOME_UNKNOWN, Reason.REPLY_LOST, null);
			}
		});
		AcquireRequest request = request().build(service.newId(), service.deadline());
		assertThat(service.acquire(request).code()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		LeaseResult resolved = service.resolve(ResolveRequest.of(request, service.deadline()));
		assertThat(resolved.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(resolved.lease()).isNotNull();
	}

	@Test
	void aRenewalAnsweredAfterItsDeadlineGrantsNoAuthority() {
		InMemoryLeaseStore memory = new InMemoryLeaseStore();
		LeaseResult acquired = acquire(service(memory));
		OffsetClock clock = new OffsetClock();
		LeaseService service = new LeaseService(new DelegatingStore() {
			@Override
			public LeaseResult renew(RenewRequest request) {
				clock.advance(Duration.ofSeconds(6)); // the reply arrives after the 5 s deadline
				return memory.renew(request);
			}
		}, clock, Duration.ofSeconds(5), this.meters, this.observations);
		LeaseResult renewed = service.renew(renewal(service, acquired.lease()));
		assertThat(renewed.code()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		assertThat(renewed.reason()).isEqualTo(Reason.REPLY_LOST);
	}

}
