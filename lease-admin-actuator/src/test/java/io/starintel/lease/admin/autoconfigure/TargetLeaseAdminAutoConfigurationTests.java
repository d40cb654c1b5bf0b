package io.starintel.lease.admin.autoconfigure;

import java.util.Collection;
import java.util.List;

import io.starintel.lease.admin.AdminCaller;
import io.starintel.lease.admin.internal.AdminFailClosedFilter;
import io.starintel.lease.admin.internal.BootAuditEventSink;
import io.starintel.lease.admin.internal.TargetLeaseAdminEndpoint;
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
import org.springframework.boot.actuate.audit.InMemoryAuditEventRepository;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointsSupplier;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Import;
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
				LeaseAuditAutoConfiguration.class, EndpointAutoConfiguration.class, WebEndpointAutoConfiguration.class,
				ManagementFilters.class))
		.withPropertyValues("starintel.lease.tenant=t", "starintel.lease.program=p",
				"starintel.lease.owner.service-principal=prn_admin_test",
				"management.endpoints.web.exposure.include=targetleases")
		// the conversion service of a SpringApplication: "read-only" binds to Access.READ_ONLY
		.withInitializer((context) -> context.getEnvironment().setConversionService(new ApplicationConversionService()));

	/**
	 * The management-context configurations as the actuator's web server context gets them: after the
	 * auto-configurations (Boot imports management-context configurations once those have run).
	 */
	@AutoConfiguration(after = { WebEndpointAutoConfiguration.class, TargetLeaseAdminAutoConfiguration.class,
			TargetLeaseConsoleAutoConfiguration.class })
	@Import({ TargetLeaseAdminManagementContextConfiguration.class,
			TargetLeaseConsoleManagementContextConfiguration.class })
	static final class ManagementFilters {

	}

	@Test
	void whenNoLeaseStoreThenEndpointBacksOff() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(TargetLeaseAdminEndpoint.class));
	}

	@Test
	void whenLeaseStoreThenEndpointAuditSinksAndSecurityChain() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new).run((context) -> {
			assertThat(context).hasSingleBean(TargetLeaseAdminEndpoint.class)
				.hasSingleBean(TargetLeaseAdminOperations.class)
				.hasBean("targetLeaseLogAuditSink")
				.hasSingleBean(ApplicationEventAuditSink.class)
				.doesNotHaveBean(RedisStreamAuditSink.class)
				.hasBean(TargetLeaseAdminSecurityAutoConfiguration.FILTER_CHAIN_BEAN);
		});
	}

	@Test
	void whenExposedThenTheAuditFilterAndTheShieldAreMappedToTheEndpointPath() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues("management.endpoints.web.base-path=/manage")
			.run((context) -> {
				assertThat(context).hasSingleBean(TargetLeaseAdminEndpoint.class);
				assertThat(urlPatterns(context, TargetLeaseAdminAutoConfiguration.AUDIT_FILTER_BEAN))
					.containsExactly("/manage/targetleases", "/manage/targetleases/*");
				assertThat(urlPatterns(context, TargetLeaseAdminManagementContextConfiguration.SHIELD_FILTER_BEAN))
					.containsExactly("/manage/targetleases", "/manage/targetleases/*");
			});
	}

	@Test
	void whenNotExposedThenNoEndpointAndNoFilters() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues("management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(TargetLeaseAdminOperations.class)
				.doesNotHaveBean(TargetLeaseAdminEndpoint.class)
				.doesNotHaveBean(TargetLeaseAdminAutoConfiguration.AUDIT_FILTER_BEAN)
				.doesNotHaveBean(TargetLeaseAdminManagementContextConfiguration.SHIELD_FILTER_BEAN));
	}

	@Test
	void whenAccessIsNoneThenNoEndpoint() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues("management.endpoint.targetleases.access=none")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(TargetLeaseAdminEndpoint.class)
				.doesNotHaveBean(TargetLeaseAdminAutoConfiguration.AUDIT_FILTER_BEAN));
	}

	@Test
	void whenAccessIsReadOnlyThenTheEndpointExistsWithoutItsWriteOperations() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues("management.endpoint.targetleases.access=read-only")
			.run((context) -> {
				assertThat(context).hasSingleBean(TargetLeaseAdminEndpoint.class);
				assertThat(operations(context)).containsOnly(OperationType.READ);
			});
	}

	@Test
	void whenMaxPermittedIsReadOnlyThenTheEndpointHasNoWriteOperation() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues("management.endpoints.access.max-permitted=read-only")
			.run((context) -> assertThat(operations(context)).containsOnly(OperationType.READ));
	}

	@Test
	void whenUnrestrictedThenTheEndpointHasReadAndWriteOperations() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.run((context) -> assertThat(operations(context)).containsOnly(OperationType.READ, OperationType.WRITE));
	}

	@Test
	void whenTheUserDefinesTheAuditFilterThenOursBacksOff() {
		FilterRegistrationBean<?> own = new FilterRegistrationBean<>();
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withBean(TargetLeaseAdminAutoConfiguration.AUDIT_FILTER_BEAN, FilterRegistrationBean.class, () -> own)
			.run((context) -> assertThat(context.getBean(TargetLeaseAdminAutoConfiguration.AUDIT_FILTER_BEAN))
				.isSameAs(own));
	}

	@Test
	void whenAnAuditEventRepositoryExistsThenAdminEventsAreBootAuditEventsToo() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withBean(InMemoryAuditEventRepository.class)
			.run((context) -> assertThat(context).hasSingleBean(BootAuditEventSink.class));
	}

	@Test
	void whenNoAuditEventRepositoryThenNoBootAuditEvents() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(BootAuditEventSink.class));
	}

	@Test
	void whenAuditIsDisabledThenNoBootAuditEvents() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withBean(InMemoryAuditEventRepository.class)
			.withPropertyValues("starintel.lease.audit.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(BootAuditEventSink.class));
	}

	@Test
	void whenTheUserDefinesTheShieldThenOursBacksOff() {
		FilterRegistrationBean<?> own = new FilterRegistrationBean<>();
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withBean(TargetLeaseAdminManagementContextConfiguration.SHIELD_FILTER_BEAN, FilterRegistrationBean.class,
					() -> own)
			.run((context) -> assertThat(
					context.getBean(TargetLeaseAdminManagementContextConfiguration.SHIELD_FILTER_BEAN)).isSameAs(own));
	}

	@Test
	void whenTheActuatorIsAbsentThenTheEndpointBacksOff() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).doesNotHaveBean(TargetLeaseAdminEndpoint.class)
				.doesNotHaveBean(TargetLeaseAdminOperations.class));
	}

	@Test
	void whenSpringBootsActuatorSecurityIsAbsentThenNoChainAndTheEndpointFailsClosed() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withClassLoader(new FilteredClassLoader(EndpointRequest.class))
			.run((context) -> {
				assertThat(context).hasSingleBean(TargetLeaseAdminEndpoint.class)
					.doesNotHaveBean(TargetLeaseAdminSecurityAutoConfiguration.FILTER_CHAIN_BEAN);
				assertThat(context.getBean(AdminCaller.class).current()).isNull();
			});
	}

	@Test
	void noServerWideSettingIsChanged() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.run((context) -> assertThat(context).doesNotHaveBean(WebServerFactoryCustomizer.class));
	}

	private static List<OperationType> operations(AssertableWebApplicationContext context) {
		ExposableWebEndpoint endpoint = context.getBean(WebEndpointsSupplier.class)
			.getEndpoints()
			.stream()
			.filter((candidate) -> candidate.getEndpointId().equals(EndpointId.of(TargetLeaseAdminEndpoint.ID)))
			.findFirst()
			.orElseThrow();
		return endpoint.getOperations().stream().map(WebOperation::getType).distinct().toList();
	}

	private static Collection<String> urlPatterns(AssertableWebApplicationContext context, String name) {
		return context.getBean(name, FilterRegistrationBean.class).getUrlPatterns();
	}

	@Test
	void whenDisabledThenEndpointBacksOff() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues("starintel.lease.admin.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(TargetLeaseAdminEndpoint.class)
				.doesNotHaveBean(TargetLeaseAdminSecurityAutoConfiguration.FILTER_CHAIN_BEAN));
	}

	@Test
	void whenUserDefinesTheEndpointChainThenOursBacksOff() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withBean(TargetLeaseAdminSecurityAutoConfiguration.FILTER_CHAIN_BEAN, SecurityFilterChain.class,
					() -> new DefaultSecurityFilterChain(
							(request) -> false))
			.run((context) -> {
				assertThat(context).hasSingleBean(TargetLeaseAdminEndpoint.class);
				assertThat(context.getBeansOfType(SecurityFilterChain.class)).hasSize(1);
			});
	}

	@Test
	void whenSpringSecurityIsAbsentThenTheEndpointFailsClosed() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withClassLoader(new FilteredClassLoader("org.springframework.security"))
			.withPropertyValues("management.endpoints.web.base-path=/manage")
			.run((context) -> {
				assertThat(context).hasSingleBean(TargetLeaseAdminEndpoint.class);
				assertThat(context.getBean(AdminCaller.class).current()).isNull();
				// every request under the endpoint is answered 401 right after the audit filter
				FilterRegistrationBean<?> failClosed = context.getBean(
						TargetLeaseAdminManagementContextConfiguration.FAIL_CLOSED_FILTER_BEAN,
						FilterRegistrationBean.class);
				assertThat(failClosed.getFilter()).isInstanceOf(AdminFailClosedFilter.class);
				assertThat(failClosed.getUrlPatterns()).containsExactly("/manage/targetleases",
						"/manage/targetleases/*");
				assertThat(failClosed.getOrder()).isGreaterThan(context
					.getBean(TargetLeaseAdminAutoConfiguration.AUDIT_FILTER_BEAN, FilterRegistrationBean.class)
					.getOrder());
			});
	}

	@Test
	void whenSpringSecurityIsPresentThenNoFailClosedFilter() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.run((context) -> assertThat(context).hasBean(TargetLeaseAdminSecurityAutoConfiguration.FILTER_CHAIN_BEAN)
				.hasBean(TargetLeaseAdminAutoConfiguration.AUDIT_FILTER_BEAN)
				.doesNotHaveBean(TargetLeaseAdminManagementContextConfiguration.FAIL_CLOSED_FILTER_BEAN));
	}

	@Test
	void whenSpringSecurityIsAbsentAndTheEndpointIsNotExposedThenNoFailClosedFilter() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withClassLoader(new FilteredClassLoader("org.springframework.security"))
			.withPropertyValues("management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(TargetLeaseAdminManagementContextConfiguration.FAIL_CLOSED_FILTER_BEAN));
	}

	@Test
	void whenTheUserDefinesTheFailClosedFilterThenOursBacksOff() {
		FilterRegistrationBean<?> own = new FilterRegistrationBean<>();
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withClassLoader(new FilteredClassLoader("org.springframework.security"))
			.withBean(TargetLeaseAdminManagementContextConfiguration.FAIL_CLOSED_FILTER_BEAN,
					FilterRegistrationBean.class, () -> own)
			.run((context) -> assertThat(
					context.getBean(TargetLeaseAdminManagementContextConfiguration.FAIL_CLOSED_FILTER_BEAN))
				.isSameAs(own));
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
				.hasMessageContaining(
						"starintel.lease.admin.credentials[0].capabilities must not include targets:revoke unless kind "
								+ "is administrator"));
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
			.run((context) -> assertThat(context).hasSingleBean(TargetLeaseAdminEndpoint.class)
				.doesNotHaveBean(AuditSink.class));
	}

}
