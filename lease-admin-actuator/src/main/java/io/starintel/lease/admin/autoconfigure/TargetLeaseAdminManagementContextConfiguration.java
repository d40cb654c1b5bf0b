package io.starintel.lease.admin.autoconfigure;

import io.starintel.lease.admin.internal.AdminAuditFilter;
import io.starintel.lease.admin.internal.AdminAuditor;
import io.starintel.lease.admin.internal.AdminFailClosedFilter;
import io.starintel.lease.admin.internal.AdminRequestShield;
import io.starintel.lease.admin.internal.TargetLeaseAdminEndpoint;
import jakarta.servlet.Filter;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * The admin endpoint's servlet filters, registered in the context whose web server serves the actuator (the
 * application's, or the management server's when {@code management.server.port} differs), at the endpoint's path
 * there: the request-audit filter before every other filter, and the shield that hands the actuator's operation
 * binding a request without query or body after Spring Security; without Spring Security on the class path, the filter
 * that answers every request 401 in its place. Nothing is registered when the endpoint is not available or not mapped
 * to a web path.
 */
@ManagementContextConfiguration(value = ManagementContextType.ANY, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBean({ TargetLeaseAdminEndpoint.class, PathMappedEndpoints.class })
final class TargetLeaseAdminManagementContextConfiguration {

	/** Name of the shield's filter registration. */
	static final String SHIELD_FILTER_BEAN = "targetLeaseAdminRequestShield";

	/** Name of the filter that answers every request 401 without Spring Security on the class path. */
	static final String FAIL_CLOSED_FILTER_BEAN = "targetLeaseAdminFailClosedFilter";

	/** Runs before every other filter (Spring Security's included) for the endpoint's paths only. */
	@Bean(TargetLeaseAdminAutoConfiguration.AUDIT_FILTER_BEAN)
	@ConditionalOnMissingBean(name = TargetLeaseAdminAutoConfiguration.AUDIT_FILTER_BEAN)
	FilterRegistrationBean<AdminAuditFilter> targetLeaseAdminAuditFilter(AdminAuditor auditor,
			PathMappedEndpoints endpoints) {
		return registration(new FilterRegistrationBean<>(new AdminAuditFilter(auditor)), endpoints,
				Ordered.HIGHEST_PRECEDENCE + 10);
	}

	/** Runs after Spring Security, just before the dispatcher, for the endpoint's paths only. */
	@Bean(SHIELD_FILTER_BEAN)
	@ConditionalOnMissingBean(name = SHIELD_FILTER_BEAN)
	FilterRegistrationBean<AdminRequestShield> targetLeaseAdminRequestShield(PathMappedEndpoints endpoints) {
		return registration(new FilterRegistrationBean<>(new AdminRequestShield()), endpoints,
				Ordered.LOWEST_PRECEDENCE - 10);
	}

	/**
	 * Without Spring Security on the class path no caller can be authenticated: every request under the endpoint is
	 * answered 401 where Spring Security's chain would run (after the audit filter), audited (fail closed).
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass("org.springframework.security.web.SecurityFilterChain")
	static class WithoutSpringSecurity {

		@Bean(FAIL_CLOSED_FILTER_BEAN)
		@ConditionalOnMissingBean(name = FAIL_CLOSED_FILTER_BEAN)
		FilterRegistrationBean<AdminFailClosedFilter> targetLeaseAdminFailClosedFilter(AdminAuditor auditor,
				PathMappedEndpoints endpoints) {
			return registration(new FilterRegistrationBean<>(new AdminFailClosedFilter(auditor)), endpoints,
					Ordered.HIGHEST_PRECEDENCE + 11);
		}

	}

	private static <T extends Filter> FilterRegistrationBean<T> registration(
			FilterRegistrationBean<T> registration, PathMappedEndpoints endpoints, int order) {
		String path = path(endpoints);
		if (path == null) {
			registration.setEnabled(false);
		}
		else {
			registration.addUrlPatterns(path, path + "/*");
		}
		registration.setOrder(order);
		return registration;
	}

	/** The endpoint's path relative to the servlet context of the actuator's server (no trailing slash). */
	static @Nullable String path(PathMappedEndpoints endpoints) {
		String path = endpoints.getPath(EndpointId.of(TargetLeaseAdminEndpoint.ID));
		if (path == null) {
			return null;
		}
		return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
	}

}
