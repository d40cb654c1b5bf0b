package io.starintel.lease.admin.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.AuditSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes the admin API's audit events (list, inspect, force-release, revoke: those of the endpoint and the
 * console, including refusals) as Spring Boot {@link AuditApplicationEvent}s, so that Boot's audit listener stores
 * them in the application's {@code AuditEventRepository} and {@code /actuator/auditevents} shows them. The Boot event's
 * principal is the caller's principal id ({@code ""} for an unauthenticated request), its type the event's wire name
 * ({@code target_lease_revoke}, ...), its data the event's fields (never a secret, a raw key or a body: see
 * {@link AuditEvent}). Not durable; never throws.
 */
public final class BootAuditEventSink implements AuditSink {

	private static final Logger logger = LoggerFactory.getLogger(BootAuditEventSink.class);

	private static final Set<AuditEventType> ADMIN_TYPES = Set.of(AuditEventType.LIST, AuditEventType.INSPECT,
			AuditEventType.FORCE_RELEASE, AuditEventType.REVOKE);

	private final ApplicationEventPublisher publisher;

	public BootAuditEventSink(ApplicationEventPublisher publisher) {
		this.publisher = publisher;
	}

	@Override
	public void record(AuditEvent event) {
		if (!ADMIN_TYPES.contains(event.eventType())) {
			return;
		}
		try {
			Map<String, Object> data = new LinkedHashMap<>(event.toFields());
			String principal = (event.principalId() != null) ? event.principalId() : "";
			this.publisher.publishEvent(new AuditApplicationEvent(
					new org.springframework.boot.actuate.audit.AuditEvent(event.backendTime(), principal,
							event.eventType().wireName(), data)));
		}
		catch (RuntimeException ex) {
			// a listener's or repository's failure never fails an admin request
			logger.warn("Publishing audit event {} to Spring Boot's audit events failed with {}",
					event.decisionId(), ex.getClass().getName());
		}
	}

}
