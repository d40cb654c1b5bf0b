package io.starintel.lease.audit.spring;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditSink;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes each {@link AuditEvent} as a Spring application event ({@code @EventListener void on(AuditEvent e)}).
 * Listener failures are the listener's: they never fail a lease operation.
 */
public final class ApplicationEventAuditSink implements AuditSink {

	private final ApplicationEventPublisher publisher;

	public ApplicationEventAuditSink(ApplicationEventPublisher publisher) {
		this.publisher = publisher;
	}

	@Override
	public void record(AuditEvent event) {
		this.publisher.publishEvent(event);
	}

}
