package io.starintel.lease.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Audit settings ({@code starintel.lease.audit.*}).
 */
@ConfigurationProperties("starintel.lease.audit")
public class LeaseAuditProperties {

	/**
	 * Whether lease operations are audited at all: the default log and application-event sinks and the admin
	 * module's Redis stream sink. With false, no audit sink is created and no event is built.
	 */
	private boolean enabled = true;

	/** Bound of the queue of routine audit events (jobs, fenced commits); a full queue drops and counts events. */
	private int queueCapacity = 10_000;

	/** At most one WARN line per interval reports dropped events and sink failures. */
	private Duration dropLogInterval = Duration.ofSeconds(10);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public int getQueueCapacity() {
		return this.queueCapacity;
	}

	public void setQueueCapacity(int queueCapacity) {
		this.queueCapacity = queueCapacity;
	}

	public Duration getDropLogInterval() {
		return this.dropLogInterval;
	}

	public void setDropLogInterval(Duration dropLogInterval) {
		this.dropLogInterval = dropLogInterval;
	}

}
