package io.starintel.lease.autoconfigure;

import io.starintel.lease.audit.LogAuditSink;
import io.starintel.lease.audit.spring.ApplicationEventAuditSink;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

/**
 * The default audit sinks of the contract's audit events: a structured log line
 * ({@code io.starintel.lease.audit} logger) and a Spring application event per event. The admin module adds the
 * durable Redis stream sink. Every {@code io.starintel.lease.audit.AuditSink} bean receives the events of the jobs'
 * lease operations. Turn both defaults off with {@code starintel.lease.audit.enabled=false}; a user bean of
 * either type replaces ours.
 */
@AutoConfiguration(before = LeaseJobAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "starintel.lease.audit.enabled", matchIfMissing = true)
public final class LeaseAuditAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LogAuditSink.class)
	LogAuditSink targetLeaseLogAuditSink() {
		return new LogAuditSink();
	}

	@Bean
	@ConditionalOnMissingBean(ApplicationEventAuditSink.class)
	ApplicationEventAuditSink targetLeaseApplicationEventAuditSink(ApplicationEventPublisher publisher) {
		return new ApplicationEventAuditSink(publisher);
	}

}
