package io.starintel.lease.admin.actuate;

import java.net.http.HttpResponse;

import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static io.starintel.lease.admin.actuate.ActuatorTestSupport.ADMIN;
import static io.starintel.lease.admin.actuate.ActuatorTestSupport.SCOPE;
import static io.starintel.lease.admin.actuate.ActuatorTestSupport.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A user's {@link LeaseStore} bean (the in-memory store behind a delegate that fails on demand) that throws an
 * {@link AssertionError}: the admin endpoint answers its 503 envelope (never Boot's 500 and its error body), and every
 * {@code starintel.lease.operation} observation stops with the error's class as its {@code error} tag. (The
 * {@code starintelLease} health indicator's answer to the same store: LeaseHealthAutoConfigurationTests, in
 * lease-autoconfigure; this module's tests have no health endpoint.)
 */
@SpringBootTest(classes = ActuatorTestSupport.UserApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(StoreErrorTests.FaultyStoreConfiguration.class)
class StoreErrorTests {

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		ActuatorTestSupport.properties(registry);
	}

	@LocalServerPort
	int port;

	@Autowired
	FaultyStore store;

	@Autowired
	MeterRegistry meters;

	@AfterEach
	void healed() {
		this.store.failure = null;
	}

	@Test
	void whenTheStoreThrowsAnErrorThenTheEndpointAnswers503AndTheObservationsStop() {
		this.store.failure = new AssertionError("store bug: secret-in-message");
		HttpResponse<String> list = get(this.port, "/actuator/targetleases" + SCOPE, ADMIN, "error-list-1");
		assertThat(list.statusCode()).as(list.body()).isEqualTo(503);
		assertThat(list.body()).contains("\"code\":\"lease_backend_unavailable\"")
			.contains("\"correlation_id\":\"error-list-1\"")
			.doesNotContain("secret-in-message")
			.doesNotContain("AssertionError")
			.doesNotContain("Internal Server Error");
		HttpResponse<String> inspect = get(this.port, "/actuator/targetleases/lease_missing" + SCOPE, ADMIN,
				"error-inspect-1");
		assertThat(inspect.statusCode()).as(inspect.body()).isEqualTo(503);
		assertThat(inspect.body()).contains("\"code\":\"lease_backend_unavailable\"")
			.doesNotContain("secret-in-message");

		assertThat(this.meters.find(LeaseService.OPERATION_TIMER + ".active")
			.longTaskTimers()
			.stream()
			.mapToLong(LongTaskTimer::activeTasks)
			.sum()).isZero();
		Timer listed = this.meters.find(LeaseService.OPERATION_TIMER)
			.tag("operation", "list")
			.tag("code", "lease_backend_unavailable")
			.tag("error", "AssertionError")
			.timer();
		assertThat(listed).isNotNull();
		assertThat(listed.count()).isEqualTo(1);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class FaultyStoreConfiguration {

		@Bean
		FaultyStore leaseStore() {
			return new FaultyStore();
		}

		/** The application's meters (this module's tests have no metrics auto-configuration). */
		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	/** The user's store: the in-memory reference store, throwing {@link #failure} on every call while it is set. */
	static final class FaultyStore implements LeaseStore {

		private final InMemoryLeaseStore delegate = new InMemoryLeaseStore();

		volatile Error failure;

		private InMemoryLeaseStore delegate() {
			Error failure = this.failure;
			if (failure != null) {
				throw failure;
			}
			return this.delegate;
		}

		@Override
		public LeaseResult acquire(AcquireRequest request) {
			return delegate().acquire(request);
		}

		@Override
		public LeaseResult renew(RenewRequest request) {
			return delegate().renew(request);
		}

		@Override
		public LeaseResult release(ReleaseRequest request) {
			return delegate().release(request);
		}

		@Override
		public LeaseResult inspect(InspectRequest request) {
			return delegate().inspect(request);
		}

		@Override
		public LeasePage list(ListRequest request) {
			return delegate().list(request);
		}

		@Override
		public LeaseResult forceRelease(AdminRequest request) {
			return delegate().forceRelease(request);
		}

		@Override
		public LeaseResult revoke(AdminRequest request) {
			return delegate().revoke(request);
		}

		@Override
		public LeaseResult authorizeCommit(CommitRequest request) {
			return delegate().authorizeCommit(request);
		}

		@Override
		public LeaseResult resolve(ResolveRequest request) {
			return delegate().resolve(request);
		}

	}

}
