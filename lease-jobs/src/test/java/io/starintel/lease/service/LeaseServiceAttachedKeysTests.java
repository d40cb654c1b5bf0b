package io.starintel.lease.service;

import java.time.Clock;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lease service's attached-key calls without request objects (docs/attachments.md): what a job's lease context
 * binds to its lease, and what other actors of the program read through. Typed results only.
 */
class LeaseServiceAttachedKeysTests {

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
		LeaseContext.Attachments keys = new LeaseContext(lease, this.service).attachments();
		assertThat(keys.put("progress", "1").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(keys.get("progress").value()).isEqualTo("1");
		assertThat(keys.get("progress").leaseId()).isEqualTo(lease.leaseId());
		assertThat(keys.list().names()).containsExactly("progress");
		assertThat(keys.delete("progress").code()).isEqualTo(ResultCode.ATTACHMENT_DELETED);
		assertThat(keys.list().names()).isEmpty();
	}

	@Test
	void anotherActorOfTheProgramReadsWithoutHoldingTheLease() {
		LeaseRecord lease = acquire();
		assertThat(this.service.putAttached(lease.handle(), "progress", "7").code())
			.isEqualTo(ResultCode.ATTACHMENT_STORED);
		ProgramScope scope = IDENTITY.scope();
		AttachmentResult read = this.service.getAttached(scope, "progress");
		assertThat(read.code()).isEqualTo(ResultCode.ATTACHMENT_READ);
		assertThat(read.value()).isEqualTo("7");
		assertThat(read.leaseId()).isEqualTo(lease.leaseId());
		assertThat(this.service.listAttached(scope, lease.leaseId()).names()).containsExactly("progress");
		assertThat(this.service.deleteAttached(lease.handle(), "progress").code())
			.isEqualTo(ResultCode.ATTACHMENT_DELETED);
		assertThat(this.service.getAttached(scope, "progress").code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	@Test
	void invalidInputIsATypedResultNotAnException() {
		LeaseContext.Attachments keys = new LeaseContext(acquire(), this.service).attachments();
		AttachmentResult invalid = keys.put("*", "v");
		assertThat(invalid.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(invalid.detail()).contains("attached_key");
		assertThat(this.service.getAttached(null, "progress").code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.service.getAttached(IDENTITY.scope(), "a/b").code())
			.isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.service.listAttached(IDENTITY.scope(), null).code())
			.isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.service.deleteAttached(null, "progress").code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
	}

}
