package io.starintel.lease.autoconfigure.health;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseProperties;
import io.starintel.lease.service.LeaseService;

/** A {@code starintelLease} health indicator for the lease backend, when Spring Boot's health support is present. */
@AutoConfiguration(after = LeaseAuditAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(LeaseService.class)
@ConditionalOnEnabledHealthIndicator("starintel-lease")
public final class LeaseHealthAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "starintelLeaseHealthIndicator")
	LeaseHealthIndicator starintelLeaseHealthIndicator(LeaseService service, LeaseProperties properties) {
		return new LeaseHealthIndicator(service, properties.getTenant(), properties.getProgram());
	}

}
