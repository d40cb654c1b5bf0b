package io.starintel.lease.worker.autoconfigure;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.web.DefaultSecurityFilterChain;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.firewall.HttpStatusRequestRejectedHandler;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.security.web.util.matcher.AnyRequestMatcher;

import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseJobAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.http.internal.FirewallRejections;
import io.starintel.lease.worker.internal.WorkerController;
import io.starintel.lease.worker.internal.WorkerCredentials;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conditions of {@link WorkerHttpAutoConfiguration}, with the lease auto-configurations it is ordered after (the
 * memory store, no user lease beans).
 */
class WorkerHttpAutoConfigurationTests {

	static final String HASH = "{bcrypt}$2a$04$abcdefghijklmnopqrstuu5Jq2s9z3mG6Nf1o7tqk0b7G7gR0mE2.";

	static final String[] LEASE = { "starintel.lease.store=memory", "starintel.lease.tenant=tenant-a",
			"starintel.lease.program=program-a", "starintel.lease.owner.service-principal=prn_service" };

	static final String[] CREDENTIAL = { "starintel.lease.worker-http.credentials[0].principal=prn_w",
			"starintel.lease.worker-http.credentials[0].credential-id=key_w",
			"starintel.lease.worker-http.credentials[0].secret-hash=" + HASH,
			"starintel.lease.worker-http.credentials[0].tenant=tenant-a",
			"starintel.lease.worker-http.credentials[0].program=program-a" };

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkerHttpAutoConfiguration.class, LeaseJobAutoConfiguration.class,
				LeaseAuditAutoConfiguration.class, LeaseStoreAutoConfiguration.class))
		.withPropertyValues(LEASE)
		.withPropertyValues(CREDENTIAL);

	@Test
	void whenNotEnabledThenNoWorkerApi() {
		this.runner.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(WorkerController.class));
	}

	@Test
	void whenEnabledInAServletApplicationThenTheWorkerApiUsesTheAutoConfiguredLeaseService() {
		this.runner.withPropertyValues("starintel.lease.worker-http.enabled=true").run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(WorkerController.class);
			assertThat(context.getBean(WorkerCredentials.class).size()).isEqualTo(1);
		});
	}

	@Test
	void whenNotAWebApplicationThenNoWorkerApi() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(WorkerHttpAutoConfiguration.class,
					LeaseJobAutoConfiguration.class, LeaseAuditAutoConfiguration.class,
					LeaseStoreAutoConfiguration.class))
			.withPropertyValues(LEASE)
			.withPropertyValues("starintel.lease.worker-http.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(WorkerController.class));
	}

	@Test
	void whenNoLeaseServiceThenNoWorkerApi() {
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(WorkerHttpAutoConfiguration.class))
			.withPropertyValues("starintel.lease.worker-http.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(WorkerController.class));
	}

	@Test
	void whenTheUserDeclaresCredentialsThenOursBackOff() {
		this.runner.withPropertyValues("starintel.lease.worker-http.enabled=true")
			.withUserConfiguration(UserCredentials.class)
			.run((context) -> assertThat(context.getBean(WorkerCredentials.class).size()).isZero());
	}

	@Configuration(proxyBeanMethods = false)
	static class UserCredentials {

		@Bean
		WorkerCredentials userWorkerCredentials() {
			return new WorkerCredentials(List.of());
		}

	}

	@Test
	void whenACredentialIsNotAWorkerThenStartUpFailsNamingTheProperty() {
		this.runner
			.withPropertyValues("starintel.lease.worker-http.enabled=true",
					"starintel.lease.worker-http.credentials[0].kind=administrator")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("starintel.lease.worker-http.credentials[0].kind"));
	}

	@Test
	void whenAWorkerHasAnAdministrativeCapabilityThenStartUpFails() {
		this.runner
			.withPropertyValues("starintel.lease.worker-http.enabled=true",
					"starintel.lease.worker-http.credentials[0].capabilities=targets:lease,targets:revoke")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("credentials[0].capabilities"));
	}

	@Test
	void whenASecretIsPlainThenStartUpFails() {
		this.runner
			.withPropertyValues("starintel.lease.worker-http.enabled=true",
					"starintel.lease.worker-http.credentials[0].secret-hash={noop}secret")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("credentials[0].secret-hash")
				.hasMessageNotContaining("secret}"));
	}


	@Test
	void whenSpringSecurityIsActiveThenTheWorkerApiHasItsOwnPermittingChainAheadOfTheDefault() {
		this.runner.withConfiguration(AutoConfigurations.of(WorkerHttpSecurityAutoConfiguration.class))
			.withUserConfiguration(WebSecurity.class)
			.withPropertyValues("starintel.lease.worker-http.enabled=true")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasBean(WorkerHttpSecurityAutoConfiguration.FILTER_CHAIN_BEAN);
				SecurityFilterChain chain = context.getBean(WorkerHttpSecurityAutoConfiguration.FILTER_CHAIN_BEAN,
						SecurityFilterChain.class);
				assertThat(chain.matches(post("/lease/v1/leases/acquire"))).isTrue();
				assertThat(chain.matches(post("/lease/v1"))).isTrue();
				assertThat(chain.matches(post("/actuator/health"))).isFalse();
				assertThat(chain.matches(post("/lease/v10/x"))).isFalse();
			});
	}

	@Test
	void whenTheWorkerApiIsOffThenNoChain() {
		this.runner.withConfiguration(AutoConfigurations.of(WorkerHttpSecurityAutoConfiguration.class))
			.withUserConfiguration(WebSecurity.class)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(WorkerHttpSecurityAutoConfiguration.FILTER_CHAIN_BEAN));
	}

	@Test
	void whenSpringSecurityIsAbsentThenNoChain() {
		this.runner.withConfiguration(AutoConfigurations.of(WorkerHttpSecurityAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("org.springframework.security.web",
					"org.springframework.security.config"))
			.withPropertyValues("starintel.lease.worker-http.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(WorkerController.class)
				.doesNotHaveBean(WorkerHttpSecurityAutoConfiguration.FILTER_CHAIN_BEAN));
	}

	@Test
	void whenSpringSecurityIsOnTheClassPathButNotActiveThenNoChain() {
		this.runner.withConfiguration(AutoConfigurations.of(WorkerHttpSecurityAutoConfiguration.class))
			.withPropertyValues("starintel.lease.worker-http.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(WorkerHttpSecurityAutoConfiguration.FILTER_CHAIN_BEAN));
	}

	@Test
	void whenTheUserNamesAChainLikeOursThenOursBacksOff() {
		this.runner.withConfiguration(AutoConfigurations.of(WorkerHttpSecurityAutoConfiguration.class))
			.withUserConfiguration(WebSecurity.class, UserWorkerChain.class)
			.withPropertyValues("starintel.lease.worker-http.enabled=true")
			.run((context) -> assertThat(context.getBean(WorkerHttpSecurityAutoConfiguration.FILTER_CHAIN_BEAN))
				.isSameAs(UserWorkerChain.CHAIN));
	}

	@Test
	void whenSpringSecurityIsActiveThenTheFirewallsRejectionsUnderTheWorkerApiGetItsAnswer() {
		this.runner.withConfiguration(AutoConfigurations.of(WorkerHttpSecurityAutoConfiguration.class))
			.withUserConfiguration(WebSecurity.class)
			.withPropertyValues("starintel.lease.worker-http.enabled=true")
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.hasSingleBean(RequestRejectedHandler.class)
					.hasBean(FirewallRejections.BEAN_NAME)
					.hasSingleBean(FirewallRejections.Answer.class);
				MockHttpServletResponse response = new MockHttpServletResponse();
				context.getBean(RequestRejectedHandler.class)
					.handle(post("/lease/v1/leases/release;x=1"), response, new RequestRejectedException("test"));
				assertThat(response.getStatus()).isEqualTo(401);
			});
	}

	@Test
	void whenTheUserHasARequestRejectedHandlerThenOursBacksOff() {
		this.runner.withConfiguration(AutoConfigurations.of(WorkerHttpSecurityAutoConfiguration.class))
			.withUserConfiguration(WebSecurity.class)
			.withBean("usersHandler", RequestRejectedHandler.class, HttpStatusRequestRejectedHandler::new)
			.withPropertyValues("starintel.lease.worker-http.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RequestRejectedHandler.class)
				.doesNotHaveBean(FirewallRejections.BEAN_NAME));
	}

	private static MockHttpServletRequest post(String path) {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", path);
		request.setServletPath(path);
		return request;
	}

	/** What Spring Boot's web security auto-configuration brings: {@code @EnableWebSecurity} (the HttpSecurity bean). */
	@Configuration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class WebSecurity {

	}

	@Configuration(proxyBeanMethods = false)
	static class UserWorkerChain {

		static final SecurityFilterChain CHAIN = new DefaultSecurityFilterChain(AnyRequestMatcher.INSTANCE);

		@Bean(WorkerHttpSecurityAutoConfiguration.FILTER_CHAIN_BEAN)
		SecurityFilterChain workerHttpSecurityFilterChain() {
			return CHAIN;
		}

	}

}
