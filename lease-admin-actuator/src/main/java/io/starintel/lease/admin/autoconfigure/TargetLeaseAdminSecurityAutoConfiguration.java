package io.starintel.lease.admin.autoconfigure;

import java.util.List;

import io.starintel.lease.admin.AdminCaller;
import io.starintel.lease.admin.AdminProperties;
import io.starintel.lease.admin.internal.AdminAuditor;
import io.starintel.lease.admin.internal.TargetLeaseAdminEndpoint;
import io.starintel.lease.admin.security.AdminGrantResolver;
import io.starintel.lease.admin.security.internal.DefaultAdminGrantResolver;
import io.starintel.lease.admin.security.internal.AdminFirewallAnswer;
import io.starintel.lease.admin.security.internal.JsonSecurityErrorHandler;
import io.starintel.lease.admin.security.internal.PropertiesAdminCredentials;
import io.starintel.lease.admin.security.internal.SecurityContextAdminCaller;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.audit.internal.AsyncAuditPipeline;
import io.starintel.lease.http.internal.FirewallRejections;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.authentication.dao.DaoAuthenticationProvider;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.authority.mapping.GrantedAuthoritiesMapper;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.firewall.RequestRejectedHandler;

/**
 * Spring Security for the admin endpoint: HTTP Basic with the credentials of
 * {@code starintel.lease.admin.credentials[...]} (credential id + secret checked against its bcrypt hash), stateless,
 * JSON 401/403 envelopes. The chain matches only the {@code targetleases} actuator endpoint
 * ({@code EndpointRequest.to("targetleases")}: its path on the server that serves the actuator); define a bean named
 * {@code targetLeaseAdminSecurityFilterChain} to replace it, an {@link AdminGrantResolver} to map your own
 * authentication to a scope, or a {@link GrantedAuthoritiesMapper} to map authorities. The credentials are not
 * exposed as a {@code UserDetailsService} bean, so they never authenticate other parts of the application.
 */
@AutoConfiguration(afterName = { "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration" },
		before = TargetLeaseAdminAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ SecurityFilterChain.class, HttpSecurity.class, EndpointRequest.class })
@ConditionalOnBooleanProperty(name = "starintel.lease.admin.enabled", matchIfMissing = true)
@EnableConfigurationProperties(AdminProperties.class)
public final class TargetLeaseAdminSecurityAutoConfiguration {

	/** Name of the endpoint's filter chain bean. */
	public static final String FILTER_CHAIN_BEAN = "targetLeaseAdminSecurityFilterChain";

	@Bean
	@ConditionalOnMissingBean
	AdminGrantResolver targetLeaseAdminGrantResolver() {
		return new DefaultAdminGrantResolver();
	}

	@Bean
	@ConditionalOnMissingBean
	AdminCaller targetLeaseAdminCaller(AdminGrantResolver resolver) {
		return new SecurityContextAdminCaller(resolver);
	}

	@Bean
	@ConditionalOnMissingBean
	AdminAuditor targetLeaseAdminAuditor(ObjectProvider<AuditSink> sinks,
			ObjectProvider<AsyncAuditPipeline> pipeline, Environment environment) {
		return TargetLeaseAdminAutoConfiguration.auditor(sinks, pipeline, environment);
	}

	@Bean
	@ConditionalOnMissingBean
	JsonSecurityErrorHandler targetLeaseAdminSecurityErrorHandler(AdminAuditor auditor) {
		return new JsonSecurityErrorHandler(auditor);
	}

	@Bean
	AdminFirewallAnswer targetLeaseAdminFirewallAnswer(Environment environment, AdminAuditor auditor) {
		return new AdminFirewallAnswer(
				environment.getProperty("management.endpoints.web.base-path", "/actuator") + "/targetleases", auditor);
	}

	@Bean(FirewallRejections.BEAN_NAME)
	@ConditionalOnMissingBean(RequestRejectedHandler.class)
	FirewallRejections targetLeaseRequestRejectedHandler(ObjectProvider<FirewallRejections.Answer> answers) {
		return new FirewallRejections(() -> answers.orderedStream().toList());
	}

	@Bean(FILTER_CHAIN_BEAN)
	@ConditionalOnMissingBean(name = FILTER_CHAIN_BEAN)
	@Order(Ordered.HIGHEST_PRECEDENCE + 50)
	SecurityFilterChain targetLeaseAdminSecurityFilterChain(HttpSecurity http, AdminProperties properties,
			JsonSecurityErrorHandler errors, ObjectProvider<GrantedAuthoritiesMapper> authoritiesMapper)
			throws Exception {
		DaoAuthenticationProvider provider = new DaoAuthenticationProvider(new PropertiesAdminCredentials(properties));
		provider.setPasswordEncoder(PasswordEncoderFactories.createDelegatingPasswordEncoder());
		authoritiesMapper.ifAvailable(provider::setAuthoritiesMapper);
		http.securityMatcher(EndpointRequest.to(TargetLeaseAdminEndpoint.ID))
			.authenticationManager(new ProviderManager(List.of(provider)))
			.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
			.httpBasic((basic) -> basic.authenticationEntryPoint(errors))
			.exceptionHandling((exceptions) -> exceptions.authenticationEntryPoint(errors).accessDeniedHandler(errors))
			.sessionManagement((sessions) -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
			.requestCache((cache) -> cache.disable())
			.csrf((csrf) -> csrf.disable());
		return http.build();
	}

}
