package io.starintel.lease.audit.spring;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditSink;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.core.ResolvableType;

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
		this.publisher.publishEvent(new AuditApplicationEvent(this.publisher, event));
	}

	/**
	 * The {@link PayloadApplicationEvent} Spring makes of a published {@link AuditEvent}, with its generic type
	 * resolved once: listeners of {@code AuditEvent} (or of {@code PayloadApplicationEvent<AuditEvent>}) match it as
	 * they match the payload event, and the multicaster finds its listeners without resolving the type per event.
	 */
	private static final class AuditApplicationEvent extends PayloadApplicationEvent<AuditEvent> {

		private static final ResolvableType TYPE = ResolvableType.forClassWithGenerics(PayloadApplicationEvent.class,
				AuditEvent.class);

		AuditApplicationEvent(Object source, AuditEvent payload) {
			super(source, payload);
		}

		@Override
		public ResolvableType getResolvableType() {
			return TYPE;
		}

	}

}
