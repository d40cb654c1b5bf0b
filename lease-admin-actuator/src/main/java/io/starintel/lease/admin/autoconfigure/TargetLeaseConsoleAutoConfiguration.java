package io.starintel.lease.admin.autoconfigure;

import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.authentication.dao.DaoAuthenticationProvider;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.authority.mapping.GrantedAuthoritiesMapper;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.LoginUrlAuthenticationEntryPoint;
import org.springframework.security.web.csrf.CsrfFilter;
import org.springframework.security.web.header.writers.ReferrerPolicyHeaderWriter;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.AnyRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;

import io.starintel.lease.admin.AdminProperties;
import io.starintel.lease.admin.console.ConsoleProperties;
import io.starintel.lease.admin.console.internal.ConsoleAuditReader;
import io.starintel.lease.admin.console.internal.ConsoleOriginFilter;
import io.starintel.lease.admin.internal.AdminAuditor;
import io.starintel.lease.admin.internal.TargetLeaseAdminEndpoint;
import io.starintel.lease.admin.internal.TargetLeaseAdminOperations;
import io.starintel.lease.admin.security.internal.JsonSecurityErrorHandler;
import io.starintel.lease.admin.security.internal.PropertiesAdminCredentials;

/**
 * The operator console at {@code <actuator base path>/targetleases-console}, beside the admin endpoint it drives
 * (its {@link TargetLeaseAdminOperations}), and only when that endpoint is available (exposed, access not
 * {@code none}); its pages and API are served where the actuator is
 * ({@link TargetLeaseConsoleManagementContextConfiguration}): a browser page with form login against the admin credentials
 * ({@code starintel.lease.admin.credentials}), an HTTP session, Spring Security's CSRF token on every write, a
 * same-origin check ({@link ConsoleOriginFilter}) and a strict content security policy. Needs Spring Security (without
 * it there is no console at all); off with {@code starintel.lease.admin.console.enabled=false} or
 * {@code starintel.lease.admin.enabled=false}. Define a bean named {@code targetLeaseConsoleSecurityFilterChain} to
 * replace the chain (e.g. single sign-on; keep CSRF on and an {@code AdminGrantResolver} for your authentication).
 */
@AutoConfiguration(after = { TargetLeaseAdminAutoConfiguration.class, TargetLeaseAdminSecurityAutoConfiguration.class },
		afterName = { "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
				"org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration" })
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ SecurityFilterChain.class, HttpSecurity.class })
@ConditionalOnBean({ TargetLeaseAdminOperations.class, JsonSecurityErrorHandler.class })
@ConditionalOnAvailableEndpoint(endpoint = TargetLeaseAdminEndpoint.class)
@ConditionalOnBooleanProperty(name = "starintel.lease.admin.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "starintel.lease.admin.console.enabled", matchIfMissing = true)
@EnableConfigurationProperties({ ConsoleProperties.class, AdminProperties.class })
public final class TargetLeaseConsoleAutoConfiguration {

	/** Name of the console's filter chain bean. */
	public static final String FILTER_CHAIN_BEAN = "targetLeaseConsoleSecurityFilterChain";

	/**
	 * Name of the console API's request-audit filter registration (in the context that serves the actuator, see
	 * {@link TargetLeaseConsoleManagementContextConfiguration}).
	 */
	public static final String AUDIT_FILTER_BEAN = "targetLeaseConsoleAuditFilter";

	/** The console's path under the actuator base path. */
	public static final String PATH = "/targetleases-console";

	static String path(Environment environment) {
		return environment.getProperty("management.endpoints.web.base-path", "/actuator") + PATH;
	}

	/** The durable streams, when the Redis stream sink of the admin module writes them. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(StringRedisTemplate.class)
	@ConditionalOnBean(type = "io.starintel.lease.audit.redis.RedisStreamAuditSink")
	static class StreamReaderConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ConsoleAuditReader targetLeaseConsoleAuditReader(StringRedisTemplate redis, ConsoleProperties properties) {
			return new ConsoleAuditReader(redis, properties.scanDepth());
		}

	}

	/** No durable streams: the console's event and health views say so ({@code stream_available: false}). */
	@Bean
	@ConditionalOnMissingBean
	ConsoleAuditReader targetLeaseConsoleAuditReader(ConsoleProperties properties) {
		return new ConsoleAuditReader(null, properties.scanDepth());
	}

	@Bean(FILTER_CHAIN_BEAN)
	@ConditionalOnMissingBean(name = FILTER_CHAIN_BEAN)
	@Order(Ordered.HIGHEST_PRECEDENCE + 51)
	SecurityFilterChain targetLeaseConsoleSecurityFilterChain(HttpSecurity http, AdminProperties properties,
			JsonSecurityErrorHandler errors, AdminAuditor auditor,
			ObjectProvider<GrantedAuthoritiesMapper> authoritiesMapper, Environment environment) throws Exception {
		String console = path(environment);
		DaoAuthenticationProvider provider = new DaoAuthenticationProvider(new PropertiesAdminCredentials(properties));
		provider.setPasswordEncoder(PasswordEncoderFactories.createDelegatingPasswordEncoder());
		authoritiesMapper.ifAvailable(provider::setAuthoritiesMapper);
		PathPatternRequestMatcher.Builder paths = PathPatternRequestMatcher.withDefaults();
		RequestMatcher api = paths.matcher(console + "/api/**");
		RequestMatcher me = paths.matcher(console + "/me");
		http.securityMatcher(console, console + "/**")
			.authenticationManager(new ProviderManager(List.of(provider)))
			.authorizeHttpRequests((requests) -> requests
				.requestMatchers(paths.matcher(console + "/login"), paths.matcher(console + "/console.css"))
				.permitAll()
				.anyRequest()
				.authenticated())
			.formLogin((form) -> form.loginPage(console + "/login")
				.loginProcessingUrl(console + "/login")
				.defaultSuccessUrl(console + "/", true)
				.failureUrl(console + "/login?error"))
			.logout((logout) -> logout.logoutUrl(console + "/logout").logoutSuccessUrl(console + "/login?logout"))
			.exceptionHandling((exceptions) -> exceptions.defaultAuthenticationEntryPointFor(errors, api)
				.defaultAuthenticationEntryPointFor(errors, me)
				.defaultAuthenticationEntryPointFor(new LoginUrlAuthenticationEntryPoint(console + "/login"),
						AnyRequestMatcher.INSTANCE)
				.accessDeniedHandler(errors))
			.requestCache((cache) -> cache.disable())
			.addFilterBefore(new ConsoleOriginFilter(auditor), CsrfFilter.class)
			.headers((headers) -> headers.contentSecurityPolicy((csp) -> csp.policyDirectives(
					"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
							+ "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"))
				.referrerPolicy((referrer) -> referrer.policy(
						ReferrerPolicyHeaderWriter.ReferrerPolicy.SAME_ORIGIN)));
		// CSRF stays on (Spring Security's default: session token, masked per response, header X-CSRF-TOKEN)
		return http.build();
	}

}
