package io.starintel.lease.admin.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import io.starintel.lease.admin.internal.TargetLeaseAdminEndpoint;
import io.starintel.lease.admin.internal.TargetLeaseAdminOperations;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.audit.internal.AsyncAuditPipeline;
import io.starintel.lease.audit.internal.AuditEventBuilder;
import io.starintel.lease.audit.internal.AuditWriteException;
import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.http.internal.FirewallRejections;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.test.TestServers;
import io.starintel.lease.worker.internal.WorkerController;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.web.firewall.HttpStatusRequestRejectedHandler;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.RequestRejectedHandler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Issue 10: the whole chain as a user's application gets it. Every auto-configuration that the starter's and the
 * admin module's {@code AutoConfiguration.imports} register (read from the classpath, in any order; those whose
 * libraries are absent here are left out, as Boot's class conditions would), with Spring
 * Boot's Redis and security auto-configurations and no user bean: the admin endpoint exists on the auto-configured
 * store (memory and Redis), over the one audited facade.
 */
class AutoConfigurationChainTests {

	private static final String[] REQUIRED = { "starintel.lease.tenant=tenant-main",
			"starintel.lease.program=program-a", "starintel.lease.owner.service-principal=prn_chain" };

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(allLeaseAutoConfigurations()))
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, SecurityAutoConfiguration.class,
				ServletWebSecurityAutoConfiguration.class, EndpointAutoConfiguration.class,
				WebEndpointAutoConfiguration.class, TargetLeaseAdminAutoConfigurationTests.ManagementFilters.class))
		.withPropertyValues(REQUIRED)
		.withPropertyValues("management.endpoints.web.exposure.include=targetleases");

	static Class<?>[] allLeaseAutoConfigurations() {
		List<Class<?>> classes = new ArrayList<>();
		for (String name : ImportCandidates.load(AutoConfiguration.class, AutoConfigurationChainTests.class.getClassLoader())) {
			if (name.startsWith("io.starintel.lease.")) {
				try {
					Class<?> type = Class.forName(name, false, AutoConfigurationChainTests.class.getClassLoader());
					type.getDeclaredMethods();
					classes.add(type);
				}
				catch (ClassNotFoundException | LinkageError ex) {
					// RabbitMQ/CouchDB fencing: their libraries are not on this module's classpath, so Boot's
					// @ConditionalOnClass would skip them too (the consumer test runs them with the libraries)
				}
			}
		}
		// both modules' registrations
		assertThat(classes).extracting(Class::getSimpleName)
			.contains("LeaseStoreAutoConfiguration", "LeaseAuditAutoConfiguration", "LeaseJobAutoConfiguration",
					"FenceAutoConfiguration", "TargetLeaseAdminAutoConfiguration",
					"TargetLeaseAdminSecurityAutoConfiguration");
		return classes.toArray(Class<?>[]::new);
	}

	/**
	 * The admin module and the worker API in one application with Spring Security: Spring Security takes exactly one
	 * {@link RequestRejectedHandler}, and the chain has one that answers a request the firewall refused with the
	 * admin endpoint's envelope under the endpoint, the worker API's under {@code /lease/v1}, and Spring Security's
	 * plain 400 elsewhere. A user's own handler replaces it.
	 */
	@Test
	void theFirewallsRejectionsGetEachAdaptersAnswerThroughOneHandler() {
		String[] worker = { "starintel.lease.store=memory", "starintel.lease.worker-http.enabled=true",
				"starintel.lease.worker-http.credentials[0].principal=prn_w",
				"starintel.lease.worker-http.credentials[0].credential-id=key_w",
				"starintel.lease.worker-http.credentials[0].secret-hash={bcrypt}$2a$04$abcdefghijklmnopqrstuu5Jq2s9z3mG6Nf1o7tqk0b7G7gR0mE2.",
				"starintel.lease.worker-http.credentials[0].tenant=tenant-main",
				"starintel.lease.worker-http.credentials[0].program=program-a" };
		this.runner.withPropertyValues(worker).run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(RequestRejectedHandler.class)
				.hasBean(FirewallRejections.BEAN_NAME)
				.hasSingleBean(WorkerController.class);
			RequestRejectedHandler handler = context.getBean(RequestRejectedHandler.class);
			for (String path : List.of("/actuator/targetleases;x=1", "/actuator/targetleases/inspect;x=1")) {
				MockHttpServletResponse admin = rejected(handler, path);
				assertThat(admin.getStatus()).as(path).isEqualTo(400);
				assertThat(admin.getContentAsString()).as(path).contains("\"code\":\"invalid_lease_request\"");
			}
			for (String path : List.of("/lease/v1;x=1", "/lease/v1/leases/acquire;x=1")) {
				MockHttpServletResponse workerApi = rejected(handler, path);
				assertThat(workerApi.getStatus()).as(path).isEqualTo(401);
				assertThat(workerApi.getContentAsString()).as(path).contains("\"code\":\"invalid_credential\"");
			}
			MockHttpServletResponse elsewhere = rejected(handler, "/elsewhere;x=1");
			assertThat(elsewhere.getStatus()).isEqualTo(400);
			assertThat(elsewhere.getContentAsString()).isEmpty();
		});
		this.runner.withPropertyValues(worker)
			.withBean("usersHandler", RequestRejectedHandler.class, HttpStatusRequestRejectedHandler::new)
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RequestRejectedHandler.class)
				.doesNotHaveBean(FirewallRejections.BEAN_NAME));
	}

	private static MockHttpServletResponse rejected(RequestRejectedHandler handler, String uri) throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", uri);
		MockHttpServletResponse response = new MockHttpServletResponse();
		handler.handle(request, response, new RequestRejectedException("rejected by the firewall"));
		return response;
	}

	@Test
	void withTheMemoryStoreTheEndpointExistsOverTheAuditedFacade() {
		this.runner.withPropertyValues("starintel.lease.store=memory").run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(InMemoryLeaseStore.class)
				.hasSingleBean(LeaseService.class)
				.hasSingleBean(TargetLeaseAdminEndpoint.class)
				.hasSingleBean(TargetLeaseAdminOperations.class)
				.hasSingleBean(FenceGuard.class)
				.hasBean("targetLeaseLogAuditSink")
				.hasSingleBean(AsyncAuditPipeline.class)
				.hasBean(TargetLeaseAdminSecurityAutoConfiguration.FILTER_CHAIN_BEAN)
				.hasBean(TargetLeaseAdminAutoConfiguration.AUDIT_FILTER_BEAN);
		});
	}

	@Test
	void theDurableStreamSinkWaitsForTheReplicasAndTheDiskTheStoreIsConfiguredFor() {
		// a server without replicas: the default (every replica the primary reports: none) confirms a write, while
		// the store's setting "exactly one replica" makes the sink refuse it, as the store refuses its own changes
		String[] server = { "spring.data.redis.url=" + TestServers.redisUri(), "spring.data.redis.timeout=500ms" };
		AuditEvent event = renewal("req-chain");
		this.runner.withPropertyValues(server).run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(RedisStreamAuditSink.class).record(event);
		});
		this.runner.withPropertyValues(server)
			.withPropertyValues("starintel.lease.redis.replica-acknowledgement.mode=fixed",
					"starintel.lease.redis.replica-acknowledgement.replicas=1")
			.run((context) -> assertThatExceptionOfType(AuditWriteException.class)
				.isThrownBy(() -> context.getBean(RedisStreamAuditSink.class).record(event)));
		// the store's disk-sync: the sink waits for the primary's append-only file too (WAITAOF), which a server without
		// one refuses, so the write is not confirmed
		this.runner.withPropertyValues(server)
			.withPropertyValues("starintel.lease.redis.replica-acknowledgement.disk-sync=true")
			.run((context) -> {
				assertThat(context.getBean(StringRedisTemplate.class)
					.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands()
						.getConfig("appendonly"))).as("the test server has no append-only file")
					.containsEntry("appendonly", "no");
				assertThatExceptionOfType(AuditWriteException.class)
					.isThrownBy(() -> context.getBean(RedisStreamAuditSink.class).record(event));
				// and so does the store: the change is made but not confirmed
				LeaseResult acquired = context.getBean(RedisLeaseStore.class)
					.acquire(new AcquireRequest(
							LockIdentity.of("tenant-main", "program-chain", "ns", "Target-disk", "actor", "default",
									null),
							Identifiers.generate("request"), Instant.now().plusSeconds(5),
							new LeaseOwner("worker-1", "client-1", "key-1", "instance-1"), 30_000, 300_000,
							Identifiers.generate("execution"), "job-chain", "trace-chain", LeaseMetadata.empty()));
				assertThat(acquired.code()).as(acquired.toString()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
				assertThat(acquired.reason()).isEqualTo(Reason.REPLICAS_NOT_ACKNOWLEDGED);
			});
	}

	@Test
	void theAuditPipelineSendsTheDurableSinkItsFailedEventsAgainForTheRetryWindowThenCountsThem() {
		// the whole chain, no user bean: the auto-configured sink refuses every write (one replica required of a server
		// that has none), the auto-configured pipeline holds the event, sends it again and gives up after the window
		String[] server = { "spring.data.redis.url=" + TestServers.redisUri(), "spring.data.redis.timeout=500ms",
				"starintel.lease.redis.replica-acknowledgement.mode=fixed",
				"starintel.lease.redis.replica-acknowledgement.replicas=1",
				"starintel.lease.audit.retry-window=1s" };
		AuditEvent event = renewal("req-chain-retry");
		this.runner.withPropertyValues(server).run((context) -> {
			assertThat(context).hasNotFailed();
			AsyncAuditPipeline pipeline = context.getBean(AsyncAuditPipeline.class);
			pipeline.submit(event);
			Awaitility.await("held for the durable sink").atMost(Duration.ofSeconds(5))
				.pollInterval(Duration.ofMillis(10))
				.until(() -> pipeline.unconfirmedCount() == 1);
			Awaitility.await("given up after the retry window").atMost(Duration.ofSeconds(10))
				.until(() -> pipeline.failedCount() == 1);
			assertThat(pipeline.unconfirmedCount()).isZero();
		});
	}

	@Test
	void withTheRedisStoreTheEndpointAndTheDurableStreamSinkExist() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLeaseStore.class)
				.hasSingleBean(LeaseService.class)
				.hasSingleBean(TargetLeaseAdminEndpoint.class)
				.hasSingleBean(TargetLeaseAdminOperations.class)
				.hasSingleBean(RedisStreamAuditSink.class)
				.hasBean(TargetLeaseAdminSecurityAutoConfiguration.FILTER_CHAIN_BEAN);
			assertThat(context.getBean(RedisLeaseStore.class).writesAdminAuditAtomically()).isTrue();
		});
	}

	/** A routine event of the chain's program, as the audited facade records a renewal. */
	private static AuditEvent renewal(String requestId) {
		return new AuditEventBuilder(AuditEventType.RENEW, ResultCode.LEASE_RENEWED)
			.time(Instant.now(), Instant.now())
			.identity(LockIdentity.of("tenant-main", "program-chain", "ns", "Target-1", "actor", "default", null))
			.ids(requestId, "corr-chain")
			.principal(PrincipalClass.WORKER, "worker-1", "key-1", "instance-1")
			.build();
	}

}
