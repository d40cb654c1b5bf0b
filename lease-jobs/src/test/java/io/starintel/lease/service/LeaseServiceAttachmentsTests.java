package io.starintel.lease.service;

import java.time.Clock;
import java.time.Duration;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.DelegatingStore;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;

/** The facade's attached-key calls: typed results only, timed by operation and code, bound by the lease context. */
class LeaseServiceAttachmentsTests {

	private static final LockIdentity IDENTITY = LockIdentity.of("tenant-main", "program-a", "starintel-target",
			"target_svc", "usernamegen", "default", "default");

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private LeaseService service(io.starintel.lease.store.LeaseStore store) {
		return new LeaseService(store, Clock.systemUTC(), Duration.ofSeconds(5), this.meters, null);
	}

	private LeaseRecord acquire(LeaseService service) {
		return service.acquire(IDENTITY, new LeaseOwner("prn_a", "client_a", "key_a", "instance_a"),
				Duration.ofSeconds(30), Duration.ofMinutes(5), "execution_1", "job_1", "trace_1", null).lease();
	}

	@Test
	void putGetListDeleteThroughTheFacadeAndTheContext() {
		LeaseService service = service(new InMemoryLeaseStore());
		LeaseRecord lease = acquire(service);
		LeaseContext.Attachments keys = new LeaseContext(lease, service).attachments();
		assertThat(keys.put("progress", "1").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(service.getAttached(IDENTITY.scope(), "progress").value()).isEqualTo("1");
		assertThat(keys.get("progress").leaseId()).isEqualTo(lease.leaseId());
		assertThat(keys.list().names()).containsExactly("progress");
		assertThat(keys.delete("progress").code()).isEqualTo(ResultCode.ATTACHMENT_DELETED);
		assertThat(service.listAttached(IDENTITY.scope(), lease.leaseId()).names()).isEmpty();
		assertThat(this.meters.get(LeaseService.OPERATION_TIMER).tag("operation", "attach_put")
			.tag("code", "attachment_stored").timer().count()).isEqualTo(1);
	}

	@Test
	void invalidNamesAndThrowingStoresAreTypedResults() {
		LeaseService broken = service(new DelegatingStore() {

			@Override
			public AttachmentResult putAttached(AttachPutRequest request) {
				throw new IllegalStateException("connection reset");
			}

		});
		LeaseRecord lease = acquire(broken);
		AttachmentResult invalid = broken.putAttached(lease.handle(), "*", "v");
		assertThat(invalid.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(invalid.detail()).contains("attached_key");
		AttachmentResult unknown = broken.putAttached(lease.handle(), "k", "v");
		assertThat(unknown.code()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		assertThat(unknown.detail()).isNull();
		assertThat(broken.operations().putAttached(new AttachPutRequest(lease.handle(), "k", "v", "request_1",
				java.time.Instant.now().plusSeconds(5))).code()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
	}

	@Test
	void aContextWithoutAServiceAnswersUnavailable() {
		LeaseRecord lease = acquire(service(new InMemoryLeaseStore()));
		assertThat(new LeaseContext(lease).attachments().put("k", "v").code())
			.isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
	}

}
