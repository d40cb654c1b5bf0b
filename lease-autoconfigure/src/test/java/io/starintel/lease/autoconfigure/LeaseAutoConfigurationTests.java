package io.starintel.lease.autoconfigure;

import java.util.List;

import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.support.ContextPropagatingTaskDecorator;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.context.SecurityContextHolder;

import io.starintel.lease.autoconfigure.health.LeaseHealthAutoConfiguration;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.job.LeaseOwnerProvider;
import io.starintel.lease.job.internal.LeaseRenewalScheduler;
import io.starintel.lease.job.internal.ServiceInstanceId;
import io.starintel.lease.job.internal.TargetLeaseInterceptor;
import io.starintel.lease.job.internal.TargetLeasedAdvisor;
import io.starintel.lease.job.TargetResolver;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ProgramScope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** Every condition of the lease auto-configurations, and start-up failures naming the property. */
class LeaseAutoConfigurationTests {

	private static final String[] REQUIRED = { "starintel.lease.tenant=tenant-main",
			"starintel.lease.program=program-a", "starintel.lease.owner.service-principal=prn_test" };

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class,
				LeaseJobAutoConfiguration.class, LeaseHealthAutoConfiguration.class))
		.withPropertyValues(REQUIRED);

	private final ApplicationContextRunner memory = this.runner.withPropertyValues("starintel.lease.store=memory");

	@AfterEach
	void clearSecurity() {
		SecurityContextHolder.clearContext();
	}

	@Test
	void whenStoreIsMemoryThenInMemoryStoreServiceSchedulerAndInterceptor() {
		this.memory.run((context) -> {
			assertThat(context).hasSingleBean(InMemoryLeaseStore.class)
				.hasSingleBean(LeaseService.class)
				.hasSingleBean(LeaseRenewalScheduler.class)
				.hasSingleBean(TargetLeaseInterceptor.class)
				.hasSingleBean(TargetLeasedAdvisor.class)
				.hasSingleBean(TargetResolver.class)
				.hasSingleBean(LeasePolicy.class)
				.doesNotHaveBean(RedisLeaseStore.class);
			assertThat(context.getBean(TargetResolver.class)).isSameAs(TargetResolver.PASS_THROUGH);
		});
	}

	@Test
	void jobStoreCallsEmitAuditEventsToTheDefaultSinks() {
		java.util.List<io.starintel.lease.audit.AuditEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
		this.memory
			.withBean(org.springframework.context.ApplicationListener.class,
					() -> (org.springframework.context.ApplicationListener<org.springframework.context.PayloadApplicationEvent<?>>) (
							event) -> {
						if (event.getPayload() instanceof io.starintel.lease.audit.AuditEvent audit) {
							events.add(audit);
						}
					})
			.run((context) -> {
				assertThat(context).hasBean("targetLeaseLogAuditSink")
					.hasSingleBean(io.starintel.lease.audit.spring.ApplicationEventAuditSink.class);
				LeaseService service = context.getBean(LeaseService.class);
				io.starintel.lease.core.LeaseResult result = service.acquire(io.starintel.lease.core.AcquireRequest
					.builder(io.starintel.lease.core.LockIdentity.of("tenant-main", "program-a", "starintel-target",
							"t1", "usernamegen", "default", null),
							new io.starintel.lease.core.LeaseOwner("prn_test", "c", "k", "i"))
					.ttl(java.time.Duration.ofSeconds(30))
					.maximumLifetime(java.time.Duration.ofMinutes(5))
					.build(service.newId(), service.deadline()));
				assertThat(result.isSuccess()).isTrue();
				// routine events go through the asynchronous audit pipeline
				org.awaitility.Awaitility.await()
					.atMost(java.time.Duration.ofSeconds(30))
					.untilAsserted(() -> assertThat(events).extracting(io.starintel.lease.audit.AuditEvent::eventType)
						.containsExactly(io.starintel.lease.audit.AuditEventType.ACQUIRE));
				assertThat(events.get(0).resultCode()).isEqualTo(io.starintel.lease.core.ResultCode.LEASE_ACQUIRED);
			});
	}

	@Test
	void whenAuditIsDisabledThenNoDefaultSinks() {
		this.memory.withPropertyValues("starintel.lease.audit.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(io.starintel.lease.audit.AuditSink.class)
				.hasSingleBean(LeaseService.class));
	}

	@Test
	void whenNoStoreChosenAndNoRedisConnectionFactoryThenStartupFailsWithClearMessage() {
		this.runner.run((context) -> {
			assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("starintel.lease.store (redis) needs a RedisConnectionFactory bean");
			// the report's action names both options (LeaseStoreCheckTests: the whole report)
			assertThat(new LeaseConfigurationFailureAnalyzer().analyze(context.getStartupFailure()).getAction())
				.contains("spring.data.redis.*")
				.contains("starintel.lease.store=memory");
		});
	}

	@Test
	void whenRedisConnectionFactoryExistsThenRedisStoreByDefault() {
		this.runner.withBean(RedisConnectionFactory.class, LettuceConnectionFactory::new)
			.run((context) -> assertThat(context).hasSingleBean(RedisLeaseStore.class)
				.doesNotHaveBean(InMemoryLeaseStore.class));
	}

	@Test
	void whenStoreIsMemoryAndRedisExistsThenMemoryStore() {
		this.memory.withBean(RedisConnectionFactory.class, LettuceConnectionFactory::new)
			.run((context) -> assertThat(context).hasSingleBean(InMemoryLeaseStore.class)
				.doesNotHaveBean(RedisLeaseStore.class));
	}

	@Test
	void whenSpringDataRedisIsAbsentAndStoreIsMemoryThenMemoryStore() {
		this.memory.withClassLoader(new FilteredClassLoader(RedisConnectionFactory.class))
			.run((context) -> assertThat(context).hasSingleBean(InMemoryLeaseStore.class));
	}

	@Test
	void whenUserDefinesBeansThenTheyWin() {
		LeaseStore store = new InMemoryLeaseStore();
		TargetResolver resolver = (namespace, reference) -> new io.starintel.lease.job.ResolvedTarget(namespace, "x");
		LeaseOwnerProvider owners = () -> new LeaseOwner("prn_user", "client_user", "key_user", "instance_user");
		this.runner.withBean(LeaseStore.class, () -> store)
			.withBean(TargetResolver.class, () -> resolver)
			.withBean(LeaseOwnerProvider.class, () -> owners)
			.withBean(TaskDecorator.class, () -> (runnable) -> runnable)
			.run((context) -> {
				assertThat(context.getBean(LeaseStore.class)).isSameAs(store);
				// the service's requests reach the user's store (through the audit decorator)
				LeaseService service = context.getBean(LeaseService.class);
				io.starintel.lease.core.LockIdentity identity = io.starintel.lease.core.LockIdentity.of("tenant-main",
						"program-a", "starintel-target", "t-user", "usernamegen", "default", null);
				assertThat(service.acquire(io.starintel.lease.core.AcquireRequest
					.builder(identity, owners.currentOwner())
					.ttl(java.time.Duration.ofSeconds(30))
					.maximumLifetime(java.time.Duration.ofMinutes(5))
					.build(service.newId(), service.deadline())).isSuccess()).isTrue();
				assertThat(store.inspect(io.starintel.lease.core.InspectRequest.byIdentity(identity, "correlation_1",
						java.time.Instant.now().plusSeconds(5))).isSuccess()).isTrue();
				assertThat(context.getBean(TargetResolver.class)).isSameAs(resolver);
				assertThat(context.getBean(LeaseOwnerProvider.class)).isSameAs(owners);
				assertThat(context).doesNotHaveBean(ContextPropagatingTaskDecorator.class);
			});
	}

	@Test
	void whenAspectjIsAbsentThenTheJobBeansRemainWithAnInfrastructureAdvisor() {
		// the advisor needs no AspectJ; Boot's proxy creator without AspectJ applies infrastructure advisors only
		this.memory.withClassLoader(new FilteredClassLoader("org.aspectj"))
			.run((context) -> {
				assertThat(context).hasSingleBean(LeaseStore.class)
					.hasSingleBean(TargetLeaseInterceptor.class)
					.hasSingleBean(TargetLeasedAdvisor.class)
					.hasSingleBean(LeaseService.class);
				assertThat(context.getBeanFactory().getBeanDefinition("targetLeasedAdvisor").getRole())
					.isEqualTo(org.springframework.beans.factory.config.BeanDefinition.ROLE_INFRASTRUCTURE);
			});
	}

	@Test
	void whenMicrometerIsAbsentThenNoJobBeans() {
		this.memory.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).doesNotHaveBean(TargetLeaseInterceptor.class)
				.doesNotHaveBean(TargetLeasedAdvisor.class));
	}

	@Test
	void whenMicrometerIsPresentThenStoreAlertsAreCounted() {
		this.memory.withBean(io.micrometer.core.instrument.simple.SimpleMeterRegistry.class).run((context) -> {
			context.getBean(io.starintel.lease.store.LeaseAlerts.class)
				.raise(new io.starintel.lease.store.LeaseAlert(io.starintel.lease.core.Reason.CORRUPT_RECORD,
						new io.starintel.lease.core.ProgramScope("tenant-main", "program-a"), "acquire", "ref_1"));
			assertThat(context.getBean(MeterRegistry.class)
				.get(LeaseStoreAutoConfiguration.ALERTS_COUNTER).tag("reason", "corrupt_record")
				.tag("operation", "acquire").counter().count()).isEqualTo(1);
		});
	}

	@Test
	void whenMicrometerIsAbsentThenStoreAlertsAreLogged() {
		this.memory.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context.getBean(io.starintel.lease.store.LeaseAlerts.class))
				.isSameAs(io.starintel.lease.store.LeaseAlerts.LOG));
	}

	@Test
	void whenContextPropagationIsPresentThenTaskDecoratorPropagatesContexts() {
		this.memory.run((context) -> assertThat(context).hasSingleBean(ContextPropagatingTaskDecorator.class));
	}

	@Test
	void whenContextPropagationIsAbsentThenNoTaskDecorator() {
		this.memory.withClassLoader(new FilteredClassLoader(ContextSnapshotFactory.class))
			.run((context) -> assertThat(context).doesNotHaveBean(TaskDecorator.class));
	}

	@Test
	void whenNoPrincipalIsAuthenticatedThenOwnerIsTheServicePrincipalWithTheJvmInstanceId() {
		this.memory.run((context) -> {
			LeaseOwner owner = context.getBean(LeaseOwnerProvider.class).currentOwner();
			assertThat(owner.principalId()).isEqualTo("prn_test");
			assertThat(owner.serviceInstanceId()).isEqualTo(ServiceInstanceId.jvm());
		});
	}

	@Test
	void whenSpringSecurityHasAnAuthenticatedPrincipalThenItOwnsTheLease() {
		this.memory.withPropertyValues("starintel.lease.owner.service-instance-id=instance_fixed").run((context) -> {
			TestingAuthenticationToken user = new TestingAuthenticationToken("prn_alice", "n/a", List.of());
			user.setAuthenticated(true);
			SecurityContextHolder.getContext().setAuthentication(user);
			LeaseOwner owner = context.getBean(LeaseOwnerProvider.class).currentOwner();
			assertThat(owner.principalId()).isEqualTo("prn_alice");
			assertThat(owner.serviceInstanceId()).isEqualTo("instance_fixed");
		});
	}

	@Test
	void whenSpringSecurityIsAbsentThenServicePrincipalOwner() {
		this.memory.withClassLoader(new FilteredClassLoader(SecurityContextHolder.class))
			.run((context) -> assertThat(context.getBean(LeaseOwnerProvider.class).currentOwner().principalId())
				.isEqualTo("prn_test"));
	}

	@Test
	void whenTenantIsMissingThenStartupFailsNamingTheProperty() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LeaseStoreAutoConfiguration.class))
			.withPropertyValues("starintel.lease.store=memory", "starintel.lease.program=program-a",
					"starintel.lease.owner.service-principal=prn_test")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("starintel.lease.tenant must be set"));
	}

	@Test
	void whenProgramIsNotCanonicalThenStartupFailsNamingTheProperty() {
		assertFailure("starintel.lease.program=Program/A", "starintel.lease.program");
	}

	@Test
	void whenTtlBoundsAreInvertedThenStartupFailsNamingTheProperty() {
		assertFailure("starintel.lease.ttl.minimum=10m", "starintel.lease.ttl.minimum");
	}

	@Test
	void whenKeyPrefixIsNotTheDefaultThenStartupFailsNamingTheProperty() {
		assertFailure("starintel.lease.key-prefix=other:", "starintel.lease.key-prefix");
	}

	@Test
	void whenOperationClassIsInvalidThenStartupFailsNamingTheProperty() {
		assertFailure("starintel.lease.operation-classes=ok,Not Valid!", "starintel.lease.operation-classes");
	}

	@Test
	void whenOperationTimeoutExceedsMaximumDeadlineThenStartupFailsNamingTheProperty() {
		assertFailure("starintel.lease.request.timeout=5m", "starintel.lease.request.timeout");
	}

	@Test
	void whenServicePrincipalIsNotAnIdentifierThenStartupFailsNamingTheProperty() {
		assertFailure("starintel.lease.owner.service-principal=has space", "starintel.lease.owner.service-principal");
	}

	@Test
	void whenListCursorSecretIsNotBase64Of16To32BytesThenStartupFailsNamingTheProperty() {
		assertFailure("starintel.lease.list.cursor-secret=c2hvcnQ=", "starintel.lease.list.cursor-secret");
	}

	@Test
	void whenInstancesShareTheListCursorSecretThenOneAcceptsTheOthersCursor() {
		String secret = "starintel.lease.list.cursor-secret=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
		ListFilter filter = new ListFilter.ByProgram(ProgramScope.of("tenant-main", "program-a"));
		this.memory.withPropertyValues(secret).run((first) -> this.memory.withPropertyValues(secret).run((second) -> {
			String cursor = first.getBean(LeaseProperties.class).listCursors().encode("position-1", filter);
			assertThat(second.getBean(LeaseProperties.class).listCursors().decode(cursor, filter))
				.isEqualTo("position-1");
		}));
		this.memory.run((first) -> this.memory.run((second) -> {
			String cursor = first.getBean(LeaseProperties.class).listCursors().encode("position-1", filter);
			assertThatExceptionOfType(InvalidLeaseRequestException.class)
				.isThrownBy(() -> second.getBean(LeaseProperties.class).listCursors().decode(cursor, filter));
		}));
	}

	private void assertFailure(String property, String expected) {
		this.memory.withPropertyValues(property)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining(expected));
	}

}
