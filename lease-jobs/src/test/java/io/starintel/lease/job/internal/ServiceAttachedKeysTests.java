package io.starintel.lease.job.internal;

import java.time.Clock;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;

/** A job's lease context binds the attached-key calls of the lease service to its lease; typed results only. */
class ServiceAttachedKeysTests {

	private static final LockIdentity IDENTITY = LockIdentity.of("tenant-main", "program-a", "starintel-target",
			"target_svc", "usernamegen", "default", "default");

	private final LeaseService service = new LeaseService(new InMemoryLeaseStore(), Clock.systemUTC(),
			Duration.ofSeconds(5), null, null);

	private LeaseRecord acquire() {
		return this.service
			.acquire(AcquireRequest.builder(IDENTITY, new LeaseOwner("prn_a", "client_a", "key_a", "instance_a"))
				.ttl(Duration.ofSeconds(30))
				.maximumLifetime(Duration.ofMinutes(5))
				.build(this.service.newId(), this.service.deadline()))
			.lease();
	}

	@Test
	void putGetListDeleteThroughTheContext() {
		LeaseRecord lease = acquire();
		LeaseContext.Attachments keys = new LeaseContext(lease, new ServiceAttachedKeys(this.service)).attachments();
		assertThat(keys.put("progress", "1").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(keys.get("progress").value()).isEqualTo("1");
		assertThat(keys.get("progress").leaseId()).isEqualTo(lease.leaseId());
		assertThat(keys.list().names()).containsExactly("progress");
		assertThat(keys.delete("progress").code()).isEqualTo(ResultCode.ATTACHMENT_DELETED);
		assertThat(keys.list().names()).isEmpty();
	}

	@Test
	void anInvalidNameIsATypedResultNotAnException() {
		LeaseContext.Attachments keys = new LeaseContext(acquire(), new ServiceAttachedKeys(this.service))
			.attachments();
		AttachmentResult invalid = keys.put("*", "v");
		assertThat(invalid.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(invalid.detail()).contains("attached_key");
	}

}
