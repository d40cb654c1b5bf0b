package io.starintel.lease.job.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.internal.AuditingLeaseStore;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.DelegatingStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A leased job's renewals (scheduled, batched, and {@link LeaseContext#renew} with a new TTL) and its release are
 * audited with the job's own credential id and its trace, execution and job ids (contract: each event records the
 * non-secret credential id and those identifiers).
 */
class JobRequestCallerAuditTests {

	private final List<AuditEvent> events = new CopyOnWriteArrayList<>();

	private final LeaseService service = new LeaseService(
			new AuditingLeaseStore(
					new DelegatingStore(
							LeasePolicy.defaults().withTtlBounds(Duration.ofMillis(100), Duration.ofMinutes(10))),
					List.of(this.events::add), Clock.systemUTC(), false),
			Clock.systemUTC(), Duration.ofSeconds(5), new SimpleMeterRegistry(), ObservationRegistry.NOOP);

	private final LeaseRenewalScheduler scheduler = new LeaseRenewalScheduler(this.service, Clock.systemUTC(),
			Duration.ofMillis(100), (event) -> {
			}, 1);

	@AfterEach
	void close() {
		this.scheduler.close();
	}

	@Test
	void renewalsAndTheReleaseOfAJobNameItsCredentialAndIds() {
		LockIdentity identity = LockIdentity.of("tenant-main", "program-a", "starintel-target", "target_caller",
				"usernamegen", "default", "default");
		LeaseResult acquired = this.service
			.acquire(AcquireRequest.builder(identity, new LeaseOwner("prn_a", "client_a", "key_a", "instance_a"))
				.ttl(Duration.ofMillis(900))
				.maximumLifetime(Duration.ofMinutes(10))
				.build(this.service.newId(), this.service.deadline()));
		assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		LeaseContext context = new LeaseContext(acquired.lease());
		LeaseRenewal renewal = this.scheduler.register(context, () -> {
		});
		// a scheduled (batched) renewal
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> this.events.stream().anyMatch((e) -> e.eventType() == AuditEventType.RENEW));
		// a renewal with a new TTL, on this thread
		assertThat(context.renew(Duration.ofMinutes(1)).code()).isEqualTo(ResultCode.LEASE_RENEWED);
		renewal.close();
		assertThat(renewal.release(this.service, this.service.deadline()).code())
			.isEqualTo(ResultCode.LEASE_RELEASED);
		List<AuditEvent> holder = this.events.stream()
			.filter((e) -> e.eventType() == AuditEventType.RENEW || e.eventType() == AuditEventType.RELEASE)
			.toList();
		assertThat(holder).extracting(AuditEvent::requestedTtlMs).contains(60_000L);
		assertThat(holder).last().extracting(AuditEvent::eventType).isEqualTo(AuditEventType.RELEASE);
		assertThat(holder).allSatisfy((event) -> {
			assertThat(event.credentialId()).isEqualTo("key_a");
			assertThat(event.principalId()).isEqualTo("prn_a");
			assertThat(event.serviceInstanceId()).isEqualTo("instance_a");
			assertThat(event.traceId()).isEqualTo(context.traceId());
			assertThat(event.executionId()).isEqualTo(context.executionId());
			assertThat(event.jobId()).isEqualTo(context.jobId());
		});
	}

	/**
	 * A job's attached-key put and delete (through its {@link LeaseContext}) are audited with the job's credential id
	 * and its trace, execution and job ids, as its renewals are; a read names the program and the job's principal,
	 * credential and service instance.
	 */
	@Test
	void attachedKeyWritesOfAJobNameItsCredentialAndIds() {
		LeaseService service = new LeaseService(
				new AuditingLeaseStore(new InMemoryLeaseStore(), List.of(this.events::add), Clock.systemUTC(), false),
				Clock.systemUTC(), Duration.ofSeconds(5), null, null);
		LockIdentity identity = LockIdentity.of("tenant-main", "program-a", "starintel-target", "target_attach",
				"usernamegen", "default", "default");
		LeaseResult acquired = service
			.acquire(AcquireRequest.builder(identity, new LeaseOwner("prn_a", "client_a", "key_a", "instance_a"))
				.ttl(Duration.ofSeconds(30))
				.maximumLifetime(Duration.ofMinutes(10))
				.build(service.newId(), service.deadline()));
		assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		LeaseContext.Attachments keys = new LeaseContext(acquired.lease(), service).attachments();
		assertThat(keys.put("cursor", "42").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(keys.get("cursor").code()).isEqualTo(ResultCode.ATTACHMENT_READ);
		assertThat(keys.delete("cursor").code()).isEqualTo(ResultCode.ATTACHMENT_DELETED);
		List<AuditEvent> attach = this.events.stream().filter((e) -> e.eventType() == AuditEventType.ATTACH).toList();
		assertThat(attach).extracting(AuditEvent::reason)
			.containsExactly("attach_put:none", "attach_get:none", "attach_delete:none");
		assertThat(attach.get(1)).satisfies((event) -> {
			assertThat(event.principalId()).isEqualTo("prn_a");
			assertThat(event.credentialId()).isEqualTo("key_a");
			assertThat(event.serviceInstanceId()).isEqualTo("instance_a");
		});
		assertThat(List.of(attach.get(0), attach.get(2))).allSatisfy((event) -> {
			assertThat(event.credentialId()).isEqualTo("key_a");
			assertThat(event.principalId()).isEqualTo("prn_a");
			assertThat(event.serviceInstanceId()).isEqualTo("instance_a");
			assertThat(event.traceId()).isEqualTo(acquired.lease().traceId());
			assertThat(event.executionId()).isEqualTo(acquired.lease().executionId());
			assertThat(event.jobId()).isEqualTo(acquired.lease().jobId());
		});
	}

}
