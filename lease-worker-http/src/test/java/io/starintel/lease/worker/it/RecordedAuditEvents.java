package io.starintel.lease.worker.it;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditSink;

/** An audit sink bean of the test applications: every audit event of the application, in order. */
final class RecordedAuditEvents implements AuditSink {

	final List<AuditEvent> events = new CopyOnWriteArrayList<>();

	@Override
	public void record(AuditEvent event) {
		this.events.add(event);
	}

}
