package io.starintel.lease.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Audit settings ({@code starintel.lease.audit.*}).
 *
 * @param enabled Whether lease operations are audited at all: the default log and application-event sinks and the
 * admin module's Redis stream sink. With false, no audit sink is created and no event is built.
 * @param queueCapacity Bound of the queue of routine audit events (jobs, fenced commits); a full queue drops and
 * counts events.
 * @param dropLogInterval At most one WARN line per interval reports dropped events and sink failures.
 */
@ConfigurationProperties("starintel.lease.audit")
public record LeaseAuditProperties(@DefaultValue("true") boolean enabled, @DefaultValue("10000") int queueCapacity,
		@DefaultValue("10s") Duration dropLogInterval) {

}
