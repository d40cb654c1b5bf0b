package io.starintel.lease.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.sweep.LeaseMeters;

/**
 * Lease lifecycle counters (granted, renewed, released, revoked; tag {@code program}) fed by the audit events of the
 * one audited path, so they need {@code starintel.lease.audit.enabled} (default on). The registry is looked up
 * lazily: without a {@link MeterRegistry} bean the counters go to a no-op registry.
 */
@AutoConfiguration(before = LeaseAuditAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "starintel.lease.audit.enabled", matchIfMissing = true)
public final class LeaseTelemetryAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "targetLeaseLifecycleMetrics")
	AuditSink targetLeaseLifecycleMetrics(ObjectProvider<MeterRegistry> meters) {
		MeterRegistry registry = meters.getIfAvailable();
		return LeaseMeters.lifecycle((registry != null) ? registry : new CompositeMeterRegistry());
	}

}
