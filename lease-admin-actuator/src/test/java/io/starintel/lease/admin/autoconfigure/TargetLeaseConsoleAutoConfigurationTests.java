package io.starintel.lease.admin.autoconfigure;

import io.starintel.lease.admin.console.internal.ConsoleAuditReader;
import io.starintel.lease.admin.console.internal.ConsoleMultipartShield;
import io.starintel.lease.admin.console.internal.TargetLeaseConsoleController;
import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterProperties;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.security.web.DefaultSecurityFilterChain;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.util.ReflectionTestUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conditions of {@link TargetLeaseConsoleAutoConfiguration}.
 */
class TargetLeaseConsoleAutoConfigurationTests {

	/** The admin endpoint and the console with the auto-configurations they build on (the other admin tests use it too). */
	static final AutoConfigurations ADMIN_AND_CONSOLE = AutoConfigurations.of(SecurityAutoConfiguration.class,
			ServletWebSecurityAutoConfiguration.class, TargetLeaseAdminSecurityAutoConfiguration.class,
			TargetLeaseAdminAutoConfiguration.class, TargetLeaseConsoleAutoConfiguration.class,
			LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class, EndpointAutoConfiguration.class,
			WebEndpointAutoConfiguration.class, TargetLeaseAdminAutoConfigurationTests.ManagementFilters.class);

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(ADMIN_AND_CONSOLE)
		.withPropertyValues("starintel.lease.tenant=t", "starintel.lease.program=p",
				"starintel.lease.owner.service-principal=prn_console_test",
				"management.endpoints.web.exposure.include=targetleases")
		.withInitializer((context) -> context.getEnvironment().setConversionService(new ApplicationConversionService()));

	@Test
	void whenTheAdminEndpointExistsThenTheConsoleAndItsChainExist() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new).run((context) -> {
			assertThat(context).hasSingleBean(TargetLeaseConsoleController.class)
				.hasBean(TargetLeaseConsoleAutoConfiguration.FILTER_CHAIN_BEAN)
				.hasBean(TargetLeaseConsoleAutoConfiguration.AUDIT_FILTER_BEAN)
				.hasBean(TargetLeaseAdminSecurityAutoConfiguration.FILTER_CHAIN_BEAN);
			assertThat(context.getBean(ConsoleAuditReader.class).configured()).isFalse();
		});
	}

	@Test
	void whenTheConsoleIsServedThenItsAuditFilterFollowsTheActuatorBasePath() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues("management.endpoints.web.base-path=/manage")
			.run((context) -> assertThat(context
				.getBean(TargetLeaseConsoleAutoConfiguration.AUDIT_FILTER_BEAN, FilterRegistrationBean.class)
				.getUrlPatterns()).containsExactly("/manage/targetleases-console/api/*"));
	}

	@Test
	void whenTheConsoleIsServedThenItsMultipartShieldCoversItsPathsAfterSpringSecurity() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues("management.endpoints.web.base-path=/manage")
			.run((context) -> {
				FilterRegistrationBean<?> shield = context.getBean(
						TargetLeaseConsoleManagementContextConfiguration.MULTIPART_SHIELD_BEAN,
						FilterRegistrationBean.class);
				assertThat(shield.getFilter()).isInstanceOf(ConsoleMultipartShield.class);
				assertThat(shield.getUrlPatterns()).containsExactly("/manage/targetleases-console",
						"/manage/targetleases-console/*");
				// after Spring Security's filter (the caller is known and CSRF checked when the console refuses it)
				assertThat(shield.getOrder()).isGreaterThan(SecurityFilterProperties.DEFAULT_FILTER_ORDER);
			});
	}

	@Test
	void whenTheUserDefinesTheMultipartShieldThenOursBacksOff() {
		FilterRegistrationBean<?> own = new FilterRegistrationBean<>();
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withBean(TargetLeaseConsoleManagementContextConfiguration.MULTIPART_SHIELD_BEAN,
					FilterRegistrationBean.class, () -> own)
			.run((context) -> assertThat(
					context.getBean(TargetLeaseConsoleManagementContextConfiguration.MULTIPART_SHIELD_BEAN))
				.isSameAs(own));
	}

	@Test
	void whenTheAdminEndpointIsNotExposedThenThereIsNoConsole() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues("management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(TargetLeaseConsoleController.class)
				.doesNotHaveBean(TargetLeaseConsoleAutoConfiguration.FILTER_CHAIN_BEAN)
				.doesNotHaveBean(TargetLeaseConsoleAutoConfiguration.AUDIT_FILTER_BEAN)
				.doesNotHaveBean(TargetLeaseConsoleManagementContextConfiguration.MULTIPART_SHIELD_BEAN));
	}

	@Test
	void whenTheAdminEndpointIsUnrestrictedThenTheConsolePermitsWrites() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.run((context) -> assertThat(writesPermitted(context)).isTrue());
	}

	@Test
	void whenTheAdminEndpointIsReadOnlyThenTheConsoleRefusesWrites() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues("management.endpoint.targetleases.access=read-only")
			.run((context) -> assertThat(writesPermitted(context)).isFalse());
	}

	@Test
	void whenMaxPermittedIsReadOnlyThenTheConsoleRefusesWrites() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues("management.endpoints.access.max-permitted=read-only")
			.run((context) -> assertThat(writesPermitted(context)).isFalse());
	}

	private static boolean writesPermitted(AssertableWebApplicationContext context) {
		return (boolean) ReflectionTestUtils.getField(context.getBean(TargetLeaseConsoleController.class),
				"writesPermitted");
	}

	@Test
	void whenNoLeaseStoreThenTheConsoleBacksOff() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(TargetLeaseConsoleController.class)
			.doesNotHaveBean(TargetLeaseConsoleAutoConfiguration.FILTER_CHAIN_BEAN));
	}

	@Test
	void whenTheConsoleIsDisabledThenOnlyTheEndpointRemains() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues("starintel.lease.admin.console.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(TargetLeaseConsoleController.class)
				.doesNotHaveBean(TargetLeaseConsoleAutoConfiguration.FILTER_CHAIN_BEAN)
				.hasBean(TargetLeaseAdminSecurityAutoConfiguration.FILTER_CHAIN_BEAN));
	}

	@Test
	void whenTheAdminModuleIsDisabledThenTheConsoleIsToo() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues("starintel.lease.admin.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(TargetLeaseConsoleController.class)
				.doesNotHaveBean(TargetLeaseConsoleAutoConfiguration.FILTER_CHAIN_BEAN));
	}

	@Test
	void whenSpringSecurityIsAbsentThenThereIsNoConsole() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withClassLoader(new FilteredClassLoader("org.springframework.security"))
			.run((context) -> assertThat(context).doesNotHaveBean(TargetLeaseConsoleController.class)
				.doesNotHaveBean(TargetLeaseConsoleManagementContextConfiguration.MULTIPART_SHIELD_BEAN));
	}

	@Test
	void whenTheUserDefinesTheConsoleChainThenOursBacksOff() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withBean(TargetLeaseConsoleAutoConfiguration.FILTER_CHAIN_BEAN, SecurityFilterChain.class,
					() -> new DefaultSecurityFilterChain((request) -> false))
			.run((context) -> {
				assertThat(context).hasSingleBean(TargetLeaseConsoleController.class);
				assertThat(context.getBeansOfType(SecurityFilterChain.class)).hasSize(2)
					.containsKeys(TargetLeaseConsoleAutoConfiguration.FILTER_CHAIN_BEAN,
							TargetLeaseAdminSecurityAutoConfiguration.FILTER_CHAIN_BEAN);
			});
	}

	@Test
	void whenTheStreamSinkExistsThenTheConsoleReadsTheDurableStreams() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withBean(StringRedisTemplate.class, () -> new StringRedisTemplate(new LettuceConnectionFactory()))
			.run((context) -> assertThat(context.getBean(ConsoleAuditReader.class).configured()).isTrue());
	}

	@Test
	void whenTheStreamSinkIsDisabledThenTheConsoleSaysSo() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withBean(StringRedisTemplate.class, () -> new StringRedisTemplate(new LettuceConnectionFactory()))
			.withPropertyValues("starintel.lease.admin.audit.stream-enabled=false")
			.run((context) -> assertThat(context.getBean(ConsoleAuditReader.class).configured()).isFalse());
	}

	@Test
	void whenSpringDataRedisIsAbsentThenTheConsoleStillStarts() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
			.run((context) -> assertThat(context).hasSingleBean(TargetLeaseConsoleController.class)
				.hasSingleBean(ConsoleAuditReader.class));
	}

}
