package io.starintel.lease.sweep;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.internal.AuditingLeaseStore;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.store.OffsetClock;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The audited path of a sweep: one {@code target_lease_expire} event per swept lease, and the lifecycle counters
 * fed by the audit events.
 */
class SweepAuditTests {

	private final AtomicLong offset = new AtomicLong();

	private final InMemoryLeaseStore memory = new InMemoryLeaseStore(new OffsetClock(this.offset),
			LeasePolicy.defaults().withTtlBounds(Duration.ofMillis(100), Duration.ofMinutes(10)));

	private final List<AuditEvent> events = new CopyOnWriteArrayList<>();

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final AuditingLeaseStore audited = new AuditingLeaseStore(this.memory,
			List.of(this.events::add, LeaseMeters.lifecycle(this.registry)), Clock.systemUTC(), false);

	private LeaseRecord acquire(String target, long ttlMs) {
		LockIdentity identity = LockIdentity.of("tenant-a", "program-a", "starintel-target", target, "usernamegen",
				"default", null);
		return this.audited.acquire(new AcquireRequest(identity, Identifiers.generate("request"),
				Instant.now().plusSeconds(30), new LeaseOwner("alice", "client", "key_1", "instance-1"), ttlMs,
				300_000, "execution_1", "job_1", "trace_1", LeaseMetadata.empty())).lease();
	}

	@Test
	void eachSweptLeaseGetsExactlyOneExpireEventNamingItsOwner() {
		LeaseRecord a = acquire("t1", 200);
		LeaseRecord b = acquire("t2", 200);
		this.offset.addAndGet(1_000);
		this.audited.sweepExpired(new SweepRequest(ProgramScope.of("tenant-a", "program-a"), 50,
				Instant.now().plusSeconds(5)));
		this.audited.sweepExpired(new SweepRequest(ProgramScope.of("tenant-a", "program-a"), 50,
				Instant.now().plusSeconds(5)));
		List<AuditEvent> expiries = this.events.stream()
			.filter((e) -> e.eventType() == AuditEventType.EXPIRE)
			.toList();
		assertThat(expiries).extracting(AuditEvent::leaseId).containsExactlyInAnyOrder(a.leaseId(), b.leaseId());
		assertThat(expiries).allSatisfy((e) -> {
			assertThat(e.previousState()).isEqualTo("active");
			assertThat(e.resultingState()).isEqualTo("expired");
			assertThat(e.principalId()).isEqualTo("alice");
			assertThat(e.serviceInstanceId()).isEqualTo("instance-1");
			assertThat(e.traceId()).isEqualTo("trace_1");
			assertThat(e.resultCode()).isEqualTo(ResultCode.LEASE_LOST);
			assertThat(e.toFields().toString()).doesNotContain(a.lockKey());
		});
	}

	@Test
	void theServiceDelegatesTheSweep() {
		LeaseRecord a = acquire("t1", 200);
		this.offset.addAndGet(1_000);
		io.starintel.lease.core.SweepResult result = new io.starintel.lease.service.LeaseService(this.audited,
				Clock.systemUTC(), Duration.ofSeconds(5), null, null)
			.sweepExpired(new SweepRequest(ProgramScope.of("tenant-a", "program-a"), 50, Instant.now().plusSeconds(5)));
		assertThat(result.isSwept()).isTrue();
		assertThat(result.expired()).extracting(LeaseRecord::leaseId).containsExactly(a.leaseId());
	}

	@Test
	void lifecycleCountersCountAuditedSuccessesPerProgram() {
		LeaseRecord a = acquire("t1", 60_000);
		acquire("t2", 60_000);
		acquire("t1", 60_000); // conflict: not a grant
		this.audited.renew(new io.starintel.lease.core.RenewRequest(a.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(30)));
		this.audited.revoke(new AdminRequest(Operation.REVOKE, a.identity(), Identifiers.generate("request"),
				Instant.now().plusSeconds(30), a.leaseId(), a.fencingToken(), "prn_admin", "key_admin", "incident"));
		assertThat(this.registry.get(LeaseMeters.GRANTED).tag("program", "program-a").counter().count())
			.isEqualTo(2);
		assertThat(this.registry.get(LeaseMeters.RENEWED).counter().count()).isEqualTo(1);
		assertThat(this.registry.get(LeaseMeters.REVOKED).tag("operation", "revoke").counter().count())
			.isEqualTo(1);
		assertThat(this.registry.getMeters()).allSatisfy((meter) -> assertThat(meter.getId().getTags())
			.allSatisfy((tag) -> assertThat(tag.getKey()).isIn("program", "operation")));
	}

}
