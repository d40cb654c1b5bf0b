package io.starintel.lease.service;

import java.time.Clock;
import java.time.Duration;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
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

/** The facade's attached-key calls: typed results only, timed by operation and code. */
class LeaseServiceAttachmentsTests {

	private static final LockIdentity IDENTITY = LockIdentity.of("tenant-main", "program-a", "starintel-target",
			"target_svc", "usernamegen", "default", "default");

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private LeaseService service(io.starintel.lease.store.LeaseStore store) {
		return new LeaseService(store, Clock.systemUTC(), Duration.ofSeconds(5), this.meters, null);
	}

	private LeaseRecord acquire(LeaseService service) {
		return service.acquire(AcquireRequest.builder(IDENTITY, new LeaseOwner("prn_a", "client_a", "key_a", "instance_a"))
			.ttl(Duration.ofSeconds(30))
			.maximumLifetime(Duration.ofMinutes(5))
			.build(service.newId(), service.deadline())).lease();
	}

	@Test
	void putGetListDeleteThroughTheFacade() {
		LeaseService service = service(new InMemoryLeaseStore());
		LeaseRecord lease = acquire(service);
		assertThat(service.putAttached(new AttachPutRequest(lease.handle(), "progress", "1", service.newId(),
				service.deadline())).code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		AttachmentResult read = service
			.getAttached(new AttachGetRequest(IDENTITY.scope(), "progress", service.newId(), service.deadline()));
		assertThat(read.value()).isEqualTo("1");
		assertThat(read.leaseId()).isEqualTo(lease.leaseId());
		assertThat(service.listAttached(new AttachListRequest(IDENTITY.scope(), lease.leaseId(), service.newId(),
				service.deadline())).names()).containsExactly("progress");
		assertThat(service.deleteAttached(new AttachDeleteRequest(lease.handle(), "progress", service.newId(),
				service.deadline())).code()).isEqualTo(ResultCode.ATTACHMENT_DELETED);
		assertThat(service.listAttached(new AttachListRequest(IDENTITY.scope(), lease.leaseId(), service.newId(),
				service.deadline())).names()).isEmpty();
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
		AttachmentResult unknown = broken
			.putAttached(new AttachPutRequest(lease.handle(), "k", "v", broken.newId(), broken.deadline()));
		assertThat(unknown.code()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		assertThat(unknown.detail()).isNull();
	}

	@Test
	void aContextWithoutAServiceAnswersUnavailable() {
		LeaseRecord lease = acquire(service(new InMemoryLeaseStore()));
		assertThat(new LeaseContext(lease).attachments().put("k", "v").code())
			.isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
	}

}
