package io.starintel.lease.worker.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.firewall.RequestRejectedHandler;

import io.starintel.lease.http.internal.FirewallRejections;
import io.starintel.lease.worker.internal.WorkerController;

/**
 * The worker API in an application with Spring Security: a filter chain of its own for {@code /lease/v1/**}, so that
 * Spring Boot's default security (HTTP Basic against its generated user, sessions, CSRF) does not stand in front of
 * it. The worker API authenticates every request itself (the worker credentials, 401 before anything else is judged,
 * every refusal audited), so the chain lets its requests through to it: stateless, no CSRF (the callers are programs
 * sending their credential with every request, never a browser session), no request cache. It is ordered after Spring
 * Boot's web security auto-configuration, whose default chain therefore still protects the rest of the application.
 * Define a bean named {@value #FILTER_CHAIN_BEAN} to replace it.
 *
 * <p>Spring Security's firewall refuses some requests before any chain runs; under the worker API they get the worker
 * API's answer (401 or 400 {@code invalid_lease_request}, audited), through the one {@link RequestRejectedHandler}
 * that this module and the admin module share ({@link FirewallRejections}; an application's own handler replaces it).
 */
@AutoConfiguration(after = WorkerHttpAutoConfiguration.class, afterName = {
		"org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration" })
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ SecurityFilterChain.class, HttpSecurity.class })
@ConditionalOnBean({ WorkerController.class, HttpSecurity.class })
public final class WorkerHttpSecurityAutoConfiguration {

	/** Name of the worker API's filter chain bean. */
	public static final String FILTER_CHAIN_BEAN = "workerHttpSecurityFilterChain";

	@Bean(FILTER_CHAIN_BEAN)
	@ConditionalOnMissingBean(name = FILTER_CHAIN_BEAN)
	@Order(Ordered.HIGHEST_PRECEDENCE + 60)
	SecurityFilterChain workerHttpSecurityFilterChain(HttpSecurity http) throws Exception {
		http.securityMatcher(WorkerController.BASE_PATH, WorkerController.BASE_PATH + "/**")
			.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll())
			.sessionManagement((sessions) -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
			.requestCache((cache) -> cache.disable())
			.csrf((csrf) -> csrf.disable());
		return http.build();
	}

	@Bean
	FirewallRejections.Answer workerHttpFirewallAnswer(WorkerController controller) {
		return controller::answerRejectedRequest;
	}

	@Bean(FirewallRejections.BEAN_NAME)
	@ConditionalOnMissingBean(RequestRejectedHandler.class)
	FirewallRejections targetLeaseRequestRejectedHandler(ObjectProvider<FirewallRejections.Answer> answers) {
		return new FirewallRejections(() -> answers.orderedStream().toList());
	}

}
