package io.starintel.lease.admin.autoconfigure;

import java.time.Clock;

import io.starintel.lease.admin.AdminCaller;
import io.starintel.lease.admin.AdminProperties;
import io.starintel.lease.admin.TargetLeaseAdminController;
import io.starintel.lease.admin.TargetLeaseAdminOperations;
import io.starintel.lease.admin.TenantAdmissionControl;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.audit.AuditingLeaseStore;
import io.starintel.lease.audit.LogAuditSink;
import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.audit.spring.ApplicationEventAuditSink;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.store.LeaseStore;
import org.springframework.beans.factory.ObjectProvider;
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
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The target-lease admin endpoint ({@code <actuator base path>/targetleases}) and its audit sinks, for a servlet
 * application with a {@link LeaseStore} bean. The store is wrapped in an {@link AuditingLeaseStore} unless it already
 * is one. Without Spring Security the endpoint fails closed (every request is 401).
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBean(LeaseStore.class)
@ConditionalOnBooleanProperty(name = "starintel.lease.admin.enabled", matchIfMissing = true)
@EnableConfigurationProperties(AdminProperties.class)
public final class TargetLeaseAdminAutoConfiguration {

	/** Class name of the Redis store, which writes force-release/revoke audit events in its transition script. */
	static final String REDIS_STORE = "io.starintel.lease.store.redis.RedisLeaseStore";

	@Bean
	@ConditionalOnMissingBean
	LogAuditSink targetLeaseLogAuditSink() {
		return new LogAuditSink();
	}

	@Bean
	@ConditionalOnMissingBean
	ApplicationEventAuditSink targetLeaseApplicationEventAuditSink(ApplicationEventPublisher publisher) {
		return new ApplicationEventAuditSink(publisher);
	}

	@Bean
	@ConditionalOnMissingBean
	TenantAdmissionControl targetLeaseAdmissionControl(AdminProperties properties) {
		AdminProperties.Admission admission = properties.getAdmission();
		return new TenantAdmissionControl(admission.getMaxInFlight(), admission.getPermitsPerSecond(),
				admission.getBurst());
	}

	@Bean
	@ConditionalOnMissingBean
	AdminCaller targetLeaseAdminCaller() {
		return () -> null;
	}

	@Bean
	@ConditionalOnMissingBean
	TargetLeaseAdminOperations targetLeaseAdminOperations(LeaseStore store, AdminCaller caller,
			TenantAdmissionControl admission, AdminProperties properties,
			ObjectProvider<OperationClasses> operationClasses, ObjectProvider<AuditSink> sinks) {
		java.util.List<AuditSink> allSinks = sinks.orderedStream().toList();
		LeaseStore audited = (store instanceof AuditingLeaseStore) ? store
				: new AuditingLeaseStore(store, allSinks, Clock.systemUTC(), storeWritesAdminEvents(store, properties));
		return new TargetLeaseAdminOperations(audited, caller, admission, properties,
				operationClasses.getIfAvailable(OperationClasses::defaults), allSinks, Clock.systemUTC());
	}

	@Bean
	@ConditionalOnMissingBean
	TargetLeaseAdminController targetLeaseAdminController(TargetLeaseAdminOperations operations,
			AdminProperties properties) {
		return new TargetLeaseAdminController(operations, properties.getMaxBodyBytes());
	}

	/** Whether the store writes admin audit events itself: the property, else true only for the Redis store. */
	static boolean storeWritesAdminEvents(LeaseStore store, AdminProperties properties) {
		Boolean configured = properties.getAudit().getStoreWritesAdminEvents();
		return (configured != null) ? configured : store.getClass().getName().equals(REDIS_STORE);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(StringRedisTemplate.class)
	@ConditionalOnBean(StringRedisTemplate.class)
	@ConditionalOnBooleanProperty(name = "starintel.lease.admin.audit.stream-enabled", matchIfMissing = true)
	static class StreamSinkConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RedisStreamAuditSink targetLeaseRedisStreamAuditSink(StringRedisTemplate redis, AdminProperties properties) {
			return new RedisStreamAuditSink(redis, properties.getAudit().getStreamMaxLength());
		}

	}

}
