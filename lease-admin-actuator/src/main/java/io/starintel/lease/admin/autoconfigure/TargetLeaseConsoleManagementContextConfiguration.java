package io.starintel.lease.admin.autoconfigure;

import io.starintel.lease.admin.AdminCaller;
import io.starintel.lease.admin.AdminProperties;
import io.starintel.lease.admin.console.ConsoleProperties;
import io.starintel.lease.admin.console.internal.ConsoleAuditReader;
import io.starintel.lease.admin.console.internal.ConsoleMultipartShield;
import io.starintel.lease.admin.console.internal.TargetLeaseConsoleController;
import io.starintel.lease.admin.internal.AdminAuditFilter;
import io.starintel.lease.admin.internal.AdminAuditor;
import io.starintel.lease.admin.internal.TargetLeaseAdminEndpoint;
import io.starintel.lease.admin.internal.TargetLeaseAdminOperations;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * The operator console's pages and JSON API, served where the actuator is: by the management server when
 * {@code management.server.port} differs (with its base path), else by the application's server, under the
 * actuator base path. Registered only with the console's auto-configuration (its audit reader) and the admin endpoint.
 * Its writes follow the endpoint's access level ({@code management.endpoint.targetleases.access},
 * {@code management.endpoints.access.max-permitted}).
 */
@ManagementContextConfiguration(value = ManagementContextType.ANY, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBean({ ConsoleAuditReader.class, TargetLeaseAdminEndpoint.class, PathMappedEndpoints.class })
final class TargetLeaseConsoleManagementContextConfiguration {

	/** Name of the console's multipart shield registration ({@link ConsoleMultipartShield}). */
	static final String MULTIPART_SHIELD_BEAN = "targetLeaseConsoleMultipartShield";

	@Bean
	@ConditionalOnMissingBean
	TargetLeaseConsoleController targetLeaseConsoleController(TargetLeaseAdminOperations operations,
			AdminCaller caller, AdminAuditor auditor, ConsoleAuditReader reader, ConsoleProperties properties,
			AdminProperties adminProperties, EndpointAccessResolver access) {
		boolean writesPermitted = access.accessFor(EndpointId.of(TargetLeaseAdminEndpoint.ID),
				Access.UNRESTRICTED) == Access.UNRESTRICTED;
		return new TargetLeaseConsoleController(operations, caller, auditor, reader, properties,
				adminProperties.maxBodyBytes(), writesPermitted);
	}

	/** Every console API request emits one audit event, as on the admin endpoint (pages and assets do not). */
	@Bean(TargetLeaseConsoleAutoConfiguration.AUDIT_FILTER_BEAN)
	@ConditionalOnMissingBean(name = TargetLeaseConsoleAutoConfiguration.AUDIT_FILTER_BEAN)
	FilterRegistrationBean<AdminAuditFilter> targetLeaseConsoleAuditFilter(AdminAuditor auditor,
			PathMappedEndpoints endpoints) {
		FilterRegistrationBean<AdminAuditFilter> registration = new FilterRegistrationBean<>(
				new AdminAuditFilter(auditor));
		registration.addUrlPatterns(basePath(endpoints) + TargetLeaseConsoleAutoConfiguration.PATH + "/api/*");
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
		return registration;
	}

	/**
	 * After Spring Security, for the console's paths: a multipart request reaches the dispatcher without its
	 * multipart content type, so its body is never parsed (a malformed one would fail before the console's handlers)
	 * and the console refuses it as any non-JSON body.
	 */
	@Bean(MULTIPART_SHIELD_BEAN)
	@ConditionalOnMissingBean(name = MULTIPART_SHIELD_BEAN)
	FilterRegistrationBean<ConsoleMultipartShield> targetLeaseConsoleMultipartShield(PathMappedEndpoints endpoints) {
		FilterRegistrationBean<ConsoleMultipartShield> registration = new FilterRegistrationBean<>(
				new ConsoleMultipartShield());
		String console = basePath(endpoints) + TargetLeaseConsoleAutoConfiguration.PATH;
		registration.addUrlPatterns(console, console + "/*");
		registration.setOrder(Ordered.LOWEST_PRECEDENCE - 10);
		return registration;
	}

	private static String basePath(PathMappedEndpoints endpoints) {
		String base = endpoints.getBasePath();
		return base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
	}

}
