package io.starintel.lease.admin.autoconfigure;

import io.starintel.lease.admin.AdminCaller;
import io.starintel.lease.admin.internal.TargetLeaseAdminController;
import io.starintel.lease.admin.internal.TargetLeaseAdminOperations;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.audit.spring.ApplicationEventAuditSink;
import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.security.web.DefaultSecurityFilterChain;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conditions of the admin auto-configurations.
 */
class TargetLeaseAdminAutoConfigurationTests {

	private static final String CREDENTIAL = "starintel.lease.admin.credentials[0].";

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SecurityAutoConfiguration.class,
				ServletWebSecurityAutoConfiguration.class, TargetLeaseAdminSecurityAutoConfiguration.class,
				TargetLeaseAdminAutoConfiguration.class, LeaseStoreAutoConfiguration.class,
				LeaseAuditAutoConfiguration.class))
		.withPropertyValues("starintel.lease.tenant=t", "starintel.lease.program=p",
				"starintel.lease.owner.service-principal=prn_admin_test");

	@Test
	void whenNoLeaseStoreThenEndpointBacksOff() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(TargetLeaseAdminController.class));
	}

	@Test
	void whenLeaseStoreThenEndpointAuditSinksAndSecurityChain() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new).run((context) -> {
			assertThat(context).hasSingleBean(TargetLeaseAdminController.class)
				.hasSingleBean(TargetLeaseAdminOperations.class)
				.hasBean("targetLeaseLogAuditSink")
				.hasSingleBean(ApplicationEventAuditSink.class)
				.doesNotHaveBean(RedisStreamAuditSink.class)
				.hasBean(TargetLeaseAdminSecurityAutoConfiguration.FILTER_CHAIN_BEAN);
		});
	}

	@Test
	void whenDisabledThenEndpointBacksOff() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues("starintel.lease.admin.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(TargetLeaseAdminController.class)
				.doesNotHaveBean(TargetLeaseAdminSecurityAutoConfiguration.FILTER_CHAIN_BEAN));
	}

	@Test
	void whenUserDefinesTheEndpointChainThenOursBacksOff() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withBean(TargetLeaseAdminSecurityAutoConfiguration.FILTER_CHAIN_BEAN, SecurityFilterChain.class,
					() -> new DefaultSecurityFilterChain(
							(request) -> false))
			.run((context) -> {
				assertThat(context).hasSingleBean(TargetLeaseAdminController.class);
				assertThat(context.getBeansOfType(SecurityFilterChain.class)).hasSize(1);
			});
	}

	@Test
	void whenSpringSecurityIsAbsentThenTheEndpointFailsClosed() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withClassLoader(new FilteredClassLoader("org.springframework.security"))
			.run((context) -> {
				assertThat(context).hasSingleBean(TargetLeaseAdminController.class);
				assertThat(context.getBean(AdminCaller.class).current()).isNull();
			});
	}

	@Test
	void whenAWorkerCredentialHoldsAnAdministrativeCapabilityThenStartupFails() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues(CREDENTIAL + "principal=w", CREDENTIAL + "credential-id=cred-w",
					CREDENTIAL + "secret-hash={bcrypt}$2a$04$abcdefghijklmnopqrstuu", CREDENTIAL + "kind=worker",
					CREDENTIAL + "capabilities=targets:revoke", CREDENTIAL + "tenant=t", CREDENTIAL + "programs=p")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("only administrator credentials may hold targets:revoke"));
	}

	@Test
	void whenASecretIsNotHashedThenStartupFails() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues(CREDENTIAL + "principal=a", CREDENTIAL + "credential-id=cred-a",
					CREDENTIAL + "secret-hash=plain-secret", CREDENTIAL + "kind=administrator",
					CREDENTIAL + "tenant=t", CREDENTIAL + "programs=p")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageNotContaining("plain-secret"));
	}

	@Test
	void theEndpointUsesTheOneAuditedFacadeAndDeclaresNoSinkOfItsOwn() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new).run((context) -> {
			assertThat(context).hasSingleBean(LeaseService.class)
				.hasBean("targetLeaseLogAuditSink")
				.hasSingleBean(ApplicationEventAuditSink.class)
				.hasBean(TargetLeaseAdminAutoConfiguration.AUDIT_FILTER_BEAN);
		});
	}

	@Test
	void whenAuditIsDisabledThenNoSinkExistsInEitherModule() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withBean(StringRedisTemplate.class,
					() -> new StringRedisTemplate(
							new LettuceConnectionFactory()))
			.withPropertyValues("starintel.lease.audit.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(TargetLeaseAdminController.class)
				.doesNotHaveBean(AuditSink.class));
	}

}
