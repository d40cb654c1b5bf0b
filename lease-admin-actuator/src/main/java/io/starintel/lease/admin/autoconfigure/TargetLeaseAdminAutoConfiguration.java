package io.starintel.lease.admin.autoconfigure;

import java.time.Clock;

import io.starintel.lease.admin.AdminCaller;
import io.starintel.lease.admin.AdminProperties;
import io.starintel.lease.admin.internal.AdminAuditor;
import io.starintel.lease.admin.internal.BootAuditEventSink;
import io.starintel.lease.admin.internal.DocumentFenceRecovery;
import io.starintel.lease.admin.internal.TargetLeaseAdminEndpoint;
import io.starintel.lease.admin.internal.TargetLeaseAdminOperations;
import io.starintel.lease.http.internal.TenantAdmission;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.audit.internal.AsyncAuditPipeline;
import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseRedisProperties;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.fence.couchdb.FenceRecovery;
import io.starintel.lease.fence.couchdb.FencedDocumentRecovery;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.redis.ReplicaAcknowledgement;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.audit.AuditEventRepository;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The target-lease admin actuator endpoint ({@code targetleases}, at {@code <actuator base path>/targetleases}), for
 * a servlet application with the {@link LeaseService} facade of {@link LeaseAuditAutoConfiguration} (so it runs after
 * the store and audit auto-configurations and works with the auto-configured store). Every store call goes through
 * {@link LeaseService}: the one audited store, with the lease policy's bounds. The endpoint is an actuator endpoint
 * like any other: it exists when it is available ({@code management.endpoints.web.exposure.include} names it and
 * its access is not {@code none}), its write operations obey {@code management.endpoint.targetleases.access} and
 * {@code management.endpoints.access.max-permitted}, and it is served where the actuator is (management port and base
 * path). Adds the durable Redis stream sink (when a {@code StringRedisTemplate} exists and audit is enabled); the
 * request-audit filters are registered with the actuator's own web server
 * ({@link TargetLeaseAdminManagementContextConfiguration}). Without Spring Security the endpoint fails closed (every
 * request is 401).
 */
@AutoConfiguration(after = { LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class },
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(LeaseService.class)
@ConditionalOnBooleanProperty(name = "starintel.lease.admin.enabled", matchIfMissing = true)
@EnableConfigurationProperties(AdminProperties.class)
public final class TargetLeaseAdminAutoConfiguration {

	/**
	 * Name of the endpoint's request-audit filter registration (in the context that serves the actuator, see
	 * {@link TargetLeaseAdminManagementContextConfiguration}).
	 */
	public static final String AUDIT_FILTER_BEAN = "targetLeaseAdminAuditFilter";

	@Bean
	@ConditionalOnMissingBean
	TenantAdmission targetLeaseAdmissionControl(AdminProperties properties) {
		return new TenantAdmission(properties.admission(), "starintel.lease.admin.admission");
	}

	@Bean
	@ConditionalOnMissingBean
	AdminCaller targetLeaseAdminCaller() {
		return () -> null;
	}

	@Bean
	@ConditionalOnMissingBean
	AdminAuditor targetLeaseAdminAuditor(ObjectProvider<AuditSink> sinks,
			ObjectProvider<AsyncAuditPipeline> pipeline, Environment environment) {
		return auditor(sinks, pipeline, environment);
	}

	/**
	 * The auditor of refused admin requests: every sink bean, nothing at all with audit disabled. Here, not in
	 * {@link TargetLeaseAdminSecurityAutoConfiguration}, whose class cannot be loaded without Spring Security.
	 */
	static AdminAuditor auditor(ObjectProvider<AuditSink> sinks, ObjectProvider<AsyncAuditPipeline> pipeline,
			Environment environment) {
		boolean enabled = environment.getProperty("starintel.lease.audit.enabled", Boolean.class, true);
		return new AdminAuditor(() -> sinks.orderedStream().toList(), enabled, Clock.systemUTC(),
				pipeline.getIfAvailable());
	}

	@Bean
	@ConditionalOnMissingBean
	TargetLeaseAdminOperations targetLeaseAdminOperations(LeaseService service, ObjectProvider<LeaseStore> stores,
			AdminCaller caller, TenantAdmission admission, AdminProperties properties,
			ObjectProvider<LeasePolicy> policy, ObjectProvider<OperationClasses> operationClasses,
			AdminAuditor auditor, ObjectProvider<DocumentFenceRecovery> documentRecovery) {
		// recovery needs the Redis store's own API: found through whatever decorates the single lease store bean
		TargetLeaseAdminOperations operations = new TargetLeaseAdminOperations(service, stores.getIfUnique(), caller,
				admission, properties, policy.getIfAvailable(LeasePolicy::defaults),
				operationClasses.getIfAvailable(OperationClasses::defaults), auditor);
		documentRecovery.ifAvailable(operations::setDocumentRecovery);
		return operations;
	}

	/**
	 * The endpoint's {@code recover-document}: lease-fence's forged-fence recovery of CouchDB documents, when the
	 * application has one ({@code starintel.lease.fence.couchdb.recovery.*}); looked up per request, so it is
	 * found wherever the fence auto-configuration runs in the ordering.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { "io.starintel.lease.fence.couchdb.FencedDocumentRecovery", "org.ektorp.CouchDbConnector" })
	static class DocumentRecoveryConfiguration {

		@Bean
		@ConditionalOnMissingBean
		DocumentFenceRecovery targetLeaseDocumentFenceRecovery(ObjectProvider<FencedDocumentRecovery> recovery) {
			return (scope, documentId, recoveryId) -> {
				FencedDocumentRecovery configured = recovery.getIfAvailable();
				if (configured == null) {
					return null;
				}
				FenceRecovery outcome = configured.recover(scope, documentId, recoveryId);
				return new DocumentFenceRecovery.Outcome(outcome.status().wireName(), outcome.replacedToken(),
						outcome.token(), outcome.restoredFrom());
			};
		}

	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint
	TargetLeaseAdminEndpoint targetLeaseAdminEndpoint(TargetLeaseAdminOperations operations,
			AdminProperties properties) {
		return new TargetLeaseAdminEndpoint(operations, properties);
	}

	/**
	 * The admin API's audit events as Spring Boot audit events, when the application keeps them (an
	 * {@code AuditEventRepository} bean: {@code /actuator/auditevents}).
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(AuditEventRepository.class)
	@ConditionalOnBooleanProperty(name = "starintel.lease.audit.enabled", matchIfMissing = true)
	static class BootAuditEventsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		BootAuditEventSink targetLeaseAdminBootAuditEventSink(ApplicationEventPublisher publisher) {
			return new BootAuditEventSink(publisher);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(StringRedisTemplate.class)
	@ConditionalOnBean(StringRedisTemplate.class)
	@ConditionalOnBooleanProperty(name = "starintel.lease.audit.enabled", matchIfMissing = true)
	static class StreamSinkConfiguration {

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnBooleanProperty(name = "starintel.lease.admin.audit.stream-enabled", matchIfMissing = true)
		static class Enabled {

			@Bean
			@ConditionalOnMissingBean
			RedisStreamAuditSink targetLeaseRedisStreamAuditSink(StringRedisTemplate redis,
					AdminProperties properties, ObjectProvider<LeaseRedisProperties> redisProperties) {
				// the store's replica acknowledgement (starintel.lease.redis.replica-acknowledgement.*) for audit too
				LeaseRedisProperties store = redisProperties.getIfAvailable();
				ReplicaAcknowledgement acknowledgement = (store != null)
						? store.replicaAcknowledgement().acknowledgement() : ReplicaAcknowledgement.allReplicas();
				return new RedisStreamAuditSink(redis, properties.audit().streamMaxLength(),
						RedisStreamAuditSink.ADMIN_STREAM_LENGTH,
						acknowledgement.waits()
								? RedisStreamAuditSink.ReplicaRequirement.of(acknowledgement::required,
										acknowledgement.diskSync())
								: null);
			}

		}

	}

}
