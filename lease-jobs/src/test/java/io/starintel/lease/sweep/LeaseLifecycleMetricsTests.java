package io.starintel.lease.sweep;

import java.time.Instant;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.internal.AuditEventBuilder;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;

import static org.assertj.core.api.Assertions.assertThat;

/** Lifecycle counters: one per (counter, program, operation), counted only for successful decisions. */
class LeaseLifecycleMetricsTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final LeaseLifecycleMetrics metrics = new LeaseLifecycleMetrics(this.registry);

	@Test
	void whenDecisionsAreAuditedThenEachKindIsCountedUnderItsNameAndTags() {
		this.metrics.record(event(AuditEventType.ACQUIRE, ResultCode.LEASE_ACQUIRED, "p1"));
		this.metrics.record(event(AuditEventType.ACQUIRE, ResultCode.LEASE_ACQUIRED, "p1"));
		this.metrics.record(event(AuditEventType.ACQUIRE, ResultCode.LEASE_CONFLICT, "p1"));
		this.metrics.record(event(AuditEventType.ACQUIRE, ResultCode.LEASE_ACQUIRED, "p2"));
		this.metrics.record(event(AuditEventType.RENEW, ResultCode.LEASE_RENEWED, "p1"));
		this.metrics.record(event(AuditEventType.RELEASE, ResultCode.LEASE_RELEASED, "p1"));
		this.metrics.record(event(AuditEventType.REVOKE, ResultCode.LEASE_REVOKED, "p1"));
		this.metrics.record(event(AuditEventType.FORCE_RELEASE, ResultCode.LEASE_RELEASED, "p1"));
		this.metrics.record(event(AuditEventType.FORCE_RELEASE, ResultCode.LEASE_RELEASED, "p1"));
		assertThat(count(LeaseMeters.GRANTED, "p1")).isEqualTo(2);
		assertThat(count(LeaseMeters.GRANTED, "p2")).isEqualTo(1);
		assertThat(count(LeaseMeters.RENEWED, "p1")).isEqualTo(1);
		assertThat(count(LeaseMeters.RELEASED, "p1")).isEqualTo(1);
		assertThat(this.registry.get(LeaseMeters.REVOKED).tag("program", "p1").tag("operation", "revoke")
			.counter().count()).isEqualTo(1);
		assertThat(this.registry.get(LeaseMeters.REVOKED).tag("program", "p1")
			.tag("operation", "force_release").counter().count()).isEqualTo(2);
		assertThat(this.registry.get(LeaseMeters.GRANTED).counters()).hasSize(2);
		assertThat(this.registry.get(LeaseMeters.GRANTED).tag("program", "p1").counter().getId().getTags())
			.hasSize(1);
	}

	@Test
	void whenTheSameKindIsCountedAgainThenTheSameCounterIsUsed() {
		this.metrics.record(event(AuditEventType.ACQUIRE, ResultCode.LEASE_ACQUIRED, "p1"));
		Counter first = this.registry.get(LeaseMeters.GRANTED).tag("program", "p1").counter();
		this.metrics.record(event(AuditEventType.ACQUIRE, ResultCode.LEASE_ACQUIRED, "p1"));
		assertThat(this.registry.get(LeaseMeters.GRANTED).tag("program", "p1").counter()).isSameAs(first);
		assertThat(first.count()).isEqualTo(2);
	}

	@Test
	void whenAnEventHasNoProgramThenNothingIsCounted() {
		this.metrics.record(new AuditEventBuilder(AuditEventType.ACQUIRE, ResultCode.LEASE_ACQUIRED).build());
		assertThat(this.registry.getMeters()).isEmpty();
	}

	private double count(String name, String program) {
		return this.registry.get(name).tag("program", program).counter().count();
	}

	private static AuditEvent event(AuditEventType type, ResultCode code, String program) {
		return new AuditEventBuilder(type, code)
			.identity(LockIdentity.of("tenant-a", program, "ns", "target-1", "actor", "default", null))
			.time(Instant.now(), Instant.now())
			.build();
	}

}
