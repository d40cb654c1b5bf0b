package io.starintel.lease.service;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One {@link LeaseObservationDocumentation#LEASE_OPERATION} observation per operation, its {@code code} set before it
 * stops, and the timer of that name coming from the observation only (no second meter of the same name with other
 * tag keys, which Prometheus refuses).
 */
class LeaseServiceObservationTests {

	private static final LockIdentity IDENTITY = LockIdentity.of("tenant-main", "program-a", "starintel-target",
			"target_svc", "usernamegen", "default", "default");

	private static final LeaseOwner OWNER = new LeaseOwner("prn_a", "client_a", "key_a", "instance_a");

	private final TestObservationRegistry observations = TestObservationRegistry.create();

	/** Each observation's low-cardinality keys as its handlers saw them at the stop. */
	private final List<Map<String, String>> atStop = new CopyOnWriteArrayList<>();

	LeaseServiceObservationTests() {
		this.observations.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStop(Observation.Context context) {
				LeaseServiceObservationTests.this.atStop.add(context.getLowCardinalityKeyValues()
					.stream()
					.collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue)));
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
	}

	private static LeaseResult acquire(LeaseService service) {
		return service.acquire(AcquireRequest.builder(IDENTITY, OWNER)
			.ttl(Duration.ofSeconds(30))
			.maximumLifetime(Duration.ofMinutes(5))
			.build(service.newId(), service.deadline()));
	}

	private static ListRequest list(LeaseService service) {
		return new ListRequest(new ListFilter.ByProgram(ProgramScope.of("tenant-main", "program-a")), null, 10,
				service.newId(), service.deadline());
	}

	private LeaseService observed() {
		return new LeaseService(new InMemoryLeaseStore(), Clock.systemUTC(), Duration.ofSeconds(5), null,
				this.observations);
	}

	@Test
	void everyOperationIsOneObservationWithItsCodeSetBeforeItStops() {
		LeaseService service = observed();
		LeaseResult acquired = acquire(service);
		service.list(list(service));
		service.probe(IDENTITY);
		service.renewAll(List.of(new RenewRequest(acquired.lease().handle(), service.newId(), service.deadline())));
		assertThat(this.atStop).containsExactly(
				Map.of("operation", "acquire", "code", "lease_acquired"),
				Map.of("operation", "list", "code", ResultCode.LEASE_LISTED.wireName()),
				Map.of("operation", "probe", "code", ResultCode.LEASE_INSPECTED.wireName()),
				Map.of("operation", "renew", "code", "lease_renewed"));
		assertThat(this.observations).hasNumberOfObservationsWithNameEqualTo(LeaseService.OBSERVATION, 4)
			.hasObservationWithNameEqualTo(LeaseService.OBSERVATION)
			.that()
			.hasContextualNameEqualTo("lease acquire")
			.hasBeenStarted()
			.hasBeenStopped()
			.hasLowCardinalityKeyValue("operation", "acquire")
			.doesNotHaveLowCardinalityKeyValueWithKey("program")
			.doesNotHaveHighCardinalityKeyValueWithKey("program");
	}

	@Test
	void whenProgramTagIsEnabledThenTheProgramIsALowCardinalityKey() {
		LeaseService service = observed();
		service.setObservationConvention(new DefaultLeaseOperationObservationConvention(true));
		acquire(service);
		assertThat(this.atStop).containsExactly(
				Map.of("operation", "acquire", "code", "lease_acquired", "program", "program-a"));
	}

	@Test
	void aUserConventionReplacesTheDefault() {
		LeaseService service = observed();
		service.setObservationConvention(new DefaultLeaseOperationObservationConvention() {

			@Override
			public String getName() {
				return "my.leases";
			}

		});
		acquire(service);
		assertThat(this.observations).hasSingleObservationThat()
			.hasNameEqualTo("my.leases")
			.hasLowCardinalityKeyValue("code", "lease_acquired");
	}

	@Test
	void withMetersAndNoObservationRegistryTheTimerStillHasOneSource() {
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		LeaseService service = new LeaseService(new InMemoryLeaseStore(), Clock.systemUTC(), Duration.ofSeconds(5),
				meters, null);
		acquire(service);
		acquire(service);
		Timer conflict = meters.get(LeaseService.OPERATION_TIMER)
			.tag("operation", "acquire")
			.tag("code", "lease_conflict")
			.timer();
		assertThat(conflict.count()).isEqualTo(1);
		assertThat(meters.get(LeaseService.OPERATION_TIMER).timers())
			.allSatisfy((timer) -> assertThat(timer.getId().getTags()).extracting((tag) -> tag.getKey())
				.containsExactlyInAnyOrder("operation", "code", "error"));
	}

	/** Before: a hand-registered timer and the observation's timer shared the name with different tag keys. */
	@Test
	void prometheusScrapeHasOneOperationMeterWithOneSetOfTagKeys() {
		PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
		this.observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(prometheus));
		LeaseService service = new LeaseService(new InMemoryLeaseStore(), Clock.systemUTC(), Duration.ofSeconds(5),
				prometheus, this.observations);
		LeaseResult acquired = acquire(service);
		acquire(service);
		service.list(list(service));
		service.renewAll(List.of(new RenewRequest(acquired.lease().handle(), service.newId(), service.deadline())));
		String scrape = prometheus.scrape();
		String count = "starintel_lease_operation_seconds_count";
		assertThat(scrape).contains(count + "{code=\"lease_acquired\",error=\"none\",operation=\"acquire\"} 1")
			.contains(count + "{code=\"lease_conflict\",error=\"none\",operation=\"acquire\"} 1")
			.contains(count + "{code=\"lease_renewed\",error=\"none\",operation=\"renew\"} 1")
			.contains("operation=\"list\"");
		List<String> series = scrape.lines().filter((line) -> line.startsWith("starintel_lease_operation_seconds_count{"))
			.toList();
		assertThat(series).hasSize(4)
			.allSatisfy((line) -> assertThat(line).contains("code=").contains("error=").contains("operation="));
	}

}
