package io.starintel.lease.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import io.starintel.lease.core.internal.PropertyProblems;

/**
 * Audit settings ({@code starintel.lease.audit.*}).
 *
 * @param enabled Whether lease operations are audited at all: the default log and application-event sinks and the
 * admin module's Redis stream sink. With false, no audit sink is created and no event is built.
 * @param queueCapacity Bound of the queue of routine audit events (jobs, fenced commits); a full queue drops and
 * counts events.
 * @param dropLogInterval At most one WARN line per interval reports dropped events and sink failures.
 * @param logSink Whether routine events (jobs, fenced commits, worker calls) are also written as log lines: auto
 * writes those no durable sink (the Redis audit stream) keeps (every one when there is no durable sink: with one,
 * requests refused before a program scope was known and admin refusals outside the caller's scope); administrative
 * decisions are always logged.
 * @param retryWindow How long routine events a durable sink (the Redis audit stream) failed to confirm are sent to it
 * again, with a back-off up to 2 s, before they count as failed (starintel.lease.audit.failed).
 */
@ConfigurationProperties("starintel.lease.audit")
public record LeaseAuditProperties(@DefaultValue("true") boolean enabled, @DefaultValue("10000") int queueCapacity,
		@DefaultValue("10s") Duration dropLogInterval, @DefaultValue("auto") LogSink logSink,
		@DefaultValue("1m") Duration retryWindow) {

	private static final String PREFIX = "starintel.lease.audit.";

	/**
	 * Validates every value, reporting every problem at once naming its property (before the audit pipeline is built
	 * from them, which would otherwise fail with a message naming no property).
	 */
	public LeaseAuditProperties {
		PropertyProblems problems = new PropertyProblems(PREFIX);
		problems.atLeast("queue-capacity", queueCapacity, 1);
		problems.positive("drop-log-interval", dropLogInterval);
		problems.positive("retry-window", retryWindow);
		problems.throwIfAny("Set each property listed under " + PREFIX + "*; see docs/jobs.md, \"Audit\".");
	}

	/** When routine events go to the log sink. */
	public enum LogSink {

		/** Those no durable sink keeps (every one when there is none). */
		AUTO,
		/** Always. */
		ON,
		/** Never (administrative decisions are still logged). */
		OFF

	}

}
