package io.starintel.lease.worker.it;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.starintel.lease.audit.internal.AuditingLeaseStore;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.store.LeaseStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Store faults on the assembled application over real Redis, each audited with the code the caller was answered: a
 * worker renewal whose success reaches the application after its deadline (the Redis store's reply, then a pause of
 * the application thread past the deadline, as a GC pause would) is {@code 503 lease_outcome_unknown}, never audited
 * as {@code lease_renewed}; a store that throws in {@code authorizeCommit} is {@code 503 lease_backend_unavailable}
 * and audited as a rejected commit.
 */
@SpringBootTest(classes = WorkerTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(WorkerStoreFaultAuditTests.LateReplies.class)
class WorkerStoreFaultAuditTests {

	@DynamicPropertySource
	static void credentials(DynamicPropertyRegistry registry) {
		WorkerTestApplication.register(registry);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class LateReplies {

		@Bean
		RecordedAuditEvents recordedAuditEvents() {
			return new RecordedAuditEvents();
		}

		/**
		 * The auto-configured Redis store, whose renewals return only once their deadline has passed and whose
		 * commit authorizations throw.
		 */
		@Bean
		static BeanPostProcessor lateRenewals() {
			return new BeanPostProcessor() {
				@Override
				public Object postProcessAfterInitialization(Object bean, String beanName) {
					if (!(bean instanceof LeaseStore store) || bean instanceof AuditingLeaseStore) {
						return bean;
					}
					return Proxy.newProxyInstance(LeaseStore.class.getClassLoader(), new Class<?>[] { LeaseStore.class },
							(proxy, method, args) -> {
								if (method.getName().equals("authorizeCommit")) {
									throw new IllegalStateException("store failure");
								}
								Object result;
								try {
									result = method.invoke(store, args);
								}
								catch (InvocationTargetException ex) {
									throw ex.getCause();
								}
								if (method.getName().equals("renew") && args[0] instanceof RenewRequest renew) {
									long ms = Duration.between(Instant.now(), renew.deadlineAt()).toMillis() + 50;
									if (ms > 0) {
										Thread.sleep(ms);
									}
								}
								return result;
							});
				}
			};
		}

	}

	@LocalServerPort
	int port;

	@Autowired
	RecordedAuditEvents audit;

	@Test
	void aStoreThatThrowsInAuthorizeCommitIsAnsweredAndAuditedAsARejectedCommit() {
		WorkerHttp http = new WorkerHttp(this.port);
		WorkerHttp.Reply acquired = http.post("/lease/v1/leases/acquire",
				WorkerApiTests.acquireBody(WorkerApiTests.target(), WorkerApiTests.rid(), "inst-1").toString(),
				WorkerApiTests.A);
		assertThat(acquired.status()).as(acquired.body()).isEqualTo(200);
		ObjectNode commit = WorkerApiTests.handleBody(acquired.json().path("lease"), null, "inst-1");
		WorkerHttp.Reply refused = http.post("/lease/v1/leases/authorize-commit", commit.toString(), WorkerApiTests.A);
		assertThat(refused.status()).as(refused.body()).isEqualTo(503);
		assertThat(refused.code()).isEqualTo("lease_backend_unavailable");
		String correlation = refused.json().path("correlation_id").asString();
		Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(this.audit.events)
			.filteredOn((event) -> correlation.equals(event.correlationId()))
			.singleElement()
			.satisfies((event) -> {
				assertThat(event.eventType().wireName()).isEqualTo("target_lease_commit_rejected");
				assertThat(event.resultCode().wireName()).isEqualTo("lease_backend_unavailable");
			}));
	}

	@Test
	void aRenewalReceivedAfterItsDeadlineIsAnsweredAndAuditedAsAnUnknownOutcome() {
		WorkerHttp http = new WorkerHttp(this.port);
		String target = WorkerApiTests.target();
		WorkerHttp.Reply acquired = http.post("/lease/v1/leases/acquire",
				WorkerApiTests.acquireBody(target, WorkerApiTests.rid(), "inst-1").toString(), WorkerApiTests.A);
		assertThat(acquired.status()).as(acquired.body()).isEqualTo(200);
		JsonNode lease = acquired.json().path("lease");
		ObjectNode renew = WorkerApiTests.handleBody(lease, WorkerApiTests.rid(), "inst-1");
		renew.put("deadline_at", Instant.now().plusMillis(1500).toString());
		WorkerHttp.Reply late = http.post("/lease/v1/leases/renew", renew.toString(), WorkerApiTests.A);
		assertThat(late.status()).as(late.body()).isEqualTo(503);
		assertThat(late.code()).isEqualTo("lease_outcome_unknown");
		String correlation = late.json().path("correlation_id").asString();
		Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(this.audit.events)
			.filteredOn((event) -> correlation.equals(event.correlationId()))
			.singleElement()
			.satisfies((event) -> {
				assertThat(event.eventType().wireName()).isEqualTo("target_lease_renew");
				assertThat(event.resultCode().wireName()).isEqualTo("lease_outcome_unknown");
			}));
	}

}
