package io.starintel.lease.test.conformance;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.AttachedKeys;
import io.starintel.lease.core.internal.Identifiers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Conformance of attached keys ({@code docs/attachments.md}): put, get, list and delete under the exact active lease,
 * a key's single owner, the per-lease limit, validation, idempotency, backend-time deadlines, and the deletion of
 * every key in the transition that ends the lease.
 */
@ExtendWith(StoreUnderTestResolver.class)
public abstract class AttachedKeyConformance {

	private LeaseStoreFixture kit;

	@BeforeEach
	void setUpFixture(LeaseStoreUnderTest underTest) {
		this.kit = new LeaseStoreFixture(underTest);
	}

	private void assertGone(LeaseRecord lease, String... names) {
		for (String name : names) {
			AttachmentResult read = this.kit.get(lease.identity().scope(), name);
			assertThat(read.code()).as(name).isEqualTo(ResultCode.LEASE_NOT_FOUND);
			assertThat(read.reason()).isEqualTo(Reason.ATTACHMENT_NOT_FOUND);
			assertThat(read.value()).isNull();
		}
		assertThat(this.kit.listAttached(lease).code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	@Test
	void attachedKeysPutGetListDelete() {
		LeaseRecord lease = this.kit.acquired(this.kit.identity("t1"), "alice");
		ProgramScope scope = lease.identity().scope();
		assertThat(this.kit.put(lease.handle(), "progress", "41").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(this.kit.put(lease.handle(), "progress", "42").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(this.kit.put(lease.handle(), "claim.marker_1", "").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		AttachmentResult read = this.kit.get(scope, "progress");
		assertThat(read.code()).isEqualTo(ResultCode.ATTACHMENT_READ);
		assertThat(read.value()).isEqualTo("42");
		assertThat(read.leaseId()).isEqualTo(lease.leaseId());
		assertThat(this.kit.get(scope, "claim.marker_1").value()).isEmpty();
		AttachmentResult listed = this.kit.listAttached(lease);
		assertThat(listed.code()).isEqualTo(ResultCode.ATTACHMENTS_LISTED);
		assertThat(listed.names()).containsExactly("claim.marker_1", "progress");
		assertThat(this.kit.deleteAttached(lease.handle(), "progress").code()).isEqualTo(ResultCode.ATTACHMENT_DELETED);
		AttachmentResult again = this.kit.deleteAttached(lease.handle(), "progress");
		assertThat(again.code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		assertThat(again.reason()).isEqualTo(Reason.ATTACHMENT_NOT_FOUND);
		assertThat(this.kit.get(scope, "progress").code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		assertThat(this.kit.listAttached(lease).names()).containsExactly("claim.marker_1");
		assertThat(this.kit.get(ProgramScope.of("tenant-kit", this.kit.program() + "x"), "claim.marker_1").code())
			.isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	@Test
	void putWithLeaseRequiresTheExactActiveLease() {
		LeaseRecord lease = this.kit.acquired(this.kit.identity("t1"), "alice");
		LeaseHandle h = lease.handle();
		AttachmentResult stale = this.kit.put(new LeaseHandle(h.identity(), h.leaseId(), h.ownerPrincipalId(),
				h.serviceInstanceId(), h.fencingToken() + 1), "k1", "v");
		assertThat(stale.code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.kit.put(new LeaseHandle(h.identity(), h.leaseId(), "mallory", h.serviceInstanceId(),
				h.fencingToken()),
				"k1", "v").code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.kit.get(lease.identity().scope(), "k1").code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		assertThat(this.kit.release(h).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertThat(this.kit.put(h, "k1", "v").code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.kit.deleteAttached(h, "k1").code()).isEqualTo(ResultCode.LEASE_LOST);
	}

	@Test
	void releaseDeletesEveryAttachedKeyInTheTransition() {
		LeaseRecord lease = this.kit.acquired(this.kit.identity("t1"), "alice");
		for (int i = 0; i < 20; i++) {
			assertThat(this.kit.put(lease.handle(), "k" + i, "v" + i).code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		}
		assertThat(this.kit.release(lease.handle()).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertGone(lease, "k0", "k7", "k19");
		LeaseRecord next = this.kit.acquired(this.kit.identity("t1"), "bob");
		assertThat(this.kit.listAttached(next).names()).isEmpty();
		assertThat(this.kit.put(next.handle(), "k7", "again").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(this.kit.get(next.identity().scope(), "k7").value()).isEqualTo("again");
	}

	@Test
	void revokeAndForceReleaseDeleteEveryAttachedKey() {
		LeaseRecord first = this.kit.acquired(this.kit.identity("t1"), "alice");
		this.kit.put(first.handle(), "a", "1");
		assertThat(this.kit.store().revoke(this.kit.admin(Operation.REVOKE, first)).code())
			.isEqualTo(ResultCode.LEASE_REVOKED);
		assertGone(first, "a");
		LeaseRecord second = this.kit.acquired(this.kit.identity("t1"), "bob");
		this.kit.put(second.handle(), "a", "2");
		assertThat(this.kit.store().forceRelease(this.kit.admin(Operation.FORCE_RELEASE, second)).code())
			.isEqualTo(ResultCode.LEASE_RELEASED);
		assertGone(second, "a");
	}

	@Test
	void expiryDeletesEveryAttachedKey() {
		LeaseResult result = this.kit.store().acquire(this.kit.acquireRequest(this.kit.identity("t1"), "alice", 2_000));
		LeaseRecord lease = result.lease();
		this.kit.put(lease.handle(), "a", "1");
		this.kit.put(lease.handle(), "b", "2");
		this.kit.advanceBackendTime(2_100);
		assertGone(lease, "a", "b");
		assertThat(this.kit.put(lease.handle(), "c", "3").code()).isEqualTo(ResultCode.LEASE_LOST);
		LeaseRecord other = this.kit.acquired(this.kit.identity("t2"), "bob");
		assertThat(this.kit.put(other.handle(), "a", "mine").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
	}

	@Test
	void aKeyBelongsToAtMostOneLease() {
		LeaseRecord a = this.kit.acquired(this.kit.identity("t1"), "alice");
		LeaseRecord b = this.kit.acquired(this.kit.identity("t2"), "bob");
		this.kit.put(a.handle(), "shared", "from-a");
		AttachmentResult refused = this.kit.put(b.handle(), "shared", "from-b");
		assertThat(refused.code()).isEqualTo(ResultCode.LEASE_CONFLICT);
		assertThat(refused.reason()).isEqualTo(Reason.ATTACHED_TO_ANOTHER_LEASE);
		assertThat(this.kit.deleteAttached(b.handle(), "shared").reason()).isEqualTo(Reason.ATTACHMENT_NOT_FOUND);
		assertThat(this.kit.get(a.identity().scope(), "shared").value()).isEqualTo("from-a");
		assertThat(this.kit.deleteAttached(a.handle(), "shared").code()).isEqualTo(ResultCode.ATTACHMENT_DELETED);
		assertThat(this.kit.put(b.handle(), "shared", "from-b").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(this.kit.get(a.identity().scope(), "shared").leaseId()).isEqualTo(b.leaseId());
		assertThat(this.kit.listAttached(a).names()).isEmpty();
	}

	@Test
	void aLateCleanupNeverTouchesASuccessorsKeys() {
		LeaseRecord first = this.kit.acquired(this.kit.identity("t1"), "alice");
		this.kit.put(first.handle(), "k", "first");
		ReleaseRequest releaseFirst = new ReleaseRequest(first.handle(), Identifiers.generate("request"),
				this.kit.deadline());
		assertThat(this.kit.store().release(releaseFirst).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		LeaseRecord successor = this.kit.acquired(this.kit.identity("t1"), "bob");
		this.kit.put(successor.handle(), "k", "second");
		assertThat(this.kit.store().release(releaseFirst).replayed()).isTrue();
		assertThat(this.kit.release(first.handle()).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.kit.store().revoke(this.kit.admin(Operation.REVOKE, first)).code())
			.isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.kit.deleteAttached(first.handle(), "k").code()).isEqualTo(ResultCode.LEASE_LOST);
		AttachmentResult read = this.kit.get(successor.identity().scope(), "k");
		assertThat(read.value()).isEqualTo("second");
		assertThat(read.leaseId()).isEqualTo(successor.leaseId());
		assertThat(this.kit.listAttached(successor).names()).containsExactly("k");
	}

	@Test
	void attachedKeysPerLeaseAreBounded() {
		this.kit.useStore(this.kit.createStoreWithAttachedKeyLimit(3));
		LeaseRecord lease = this.kit.acquired(this.kit.identity("t1"), "alice");
		for (String name : List.of("a", "b", "c")) {
			assertThat(this.kit.put(lease.handle(), name, "v").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		}
		AttachmentResult refused = this.kit.put(lease.handle(), "d", "v");
		assertThat(refused.code()).isEqualTo(ResultCode.LEASE_RATE_LIMITED);
		assertThat(refused.reason()).isEqualTo(Reason.ATTACHED_KEY_LIMIT_REACHED);
		assertThat(this.kit.put(lease.handle(), "c", "replaced").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		this.kit.deleteAttached(lease.handle(), "a");
		assertThat(this.kit.put(lease.handle(), "d", "v").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(this.kit.listAttached(lease).names()).containsExactly("b", "c", "d");
	}

	@Test
	void attachedNamesAndValuesAreValidated() {
		LeaseRecord lease = this.kit.acquired(this.kit.identity("t1"), "alice");
		for (String bad : new String[] { "", "a*b", "a?", "[a]", "a/b", "..", "a..b", ".hidden", "a:b", "a b",
				"a\u001fb", "x".repeat(AttachedKeys.MAX_NAME_LENGTH + 1) }) {
			assertThat(AttachedKeys.isValidName(bad)).as(bad).isFalse();
			assertThatExceptionOfType(InvalidLeaseRequestException.class)
				.isThrownBy(() -> new AttachPutRequest(lease.handle(), bad, "v", "request_1", this.kit.deadline()));
		}
		assertThat(AttachedKeys.isValidName("x".repeat(AttachedKeys.MAX_NAME_LENGTH))).isTrue();
		AttachmentResult large = this.kit.put(lease.handle(), "big",
				"x".repeat(AttachedKeys.DEFAULT_MAXIMUM_VALUE_BYTES + 1));
		assertThat(large.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(large.detail()).contains("attached_value").doesNotContain("xxx");
		assertThat(this.kit.put(lease.handle(), "big", "x".repeat(AttachedKeys.DEFAULT_MAXIMUM_VALUE_BYTES)).code())
			.isEqualTo(ResultCode.ATTACHMENT_STORED);
	}

	@Test
	void attachedKeyMutationsAreIdempotentByRequestId() {
		LeaseRecord lease = this.kit.acquired(this.kit.identity("t1"), "alice");
		AttachPutRequest request = new AttachPutRequest(lease.handle(), "k", "v1", Identifiers.generate("request"),
				this.kit.deadline());
		AttachmentResult first = this.kit.store().putAttached(request);
		this.kit.put(lease.handle(), "k", "v2");
		AttachmentResult replay = this.kit.store().putAttached(request);
		assertThat(first.replayed()).isFalse();
		assertThat(replay.code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(replay.replayed()).isTrue();
		assertThat(this.kit.get(lease.identity().scope(), "k").value()).isEqualTo("v2");
		AttachPutRequest changed = new AttachPutRequest(lease.handle(), "k", "v3", request.requestId(),
				this.kit.deadline());
		assertThat(this.kit.store().putAttached(changed).code()).isEqualTo(ResultCode.IDEMPOTENCY_CONFLICT);
		AttachDeleteRequest delete = new AttachDeleteRequest(lease.handle(), "k", Identifiers.generate("request"),
				this.kit.deadline());
		assertThat(this.kit.store().deleteAttached(delete).code()).isEqualTo(ResultCode.ATTACHMENT_DELETED);
		AttachmentResult deleteReplay = this.kit.store().deleteAttached(delete);
		assertThat(deleteReplay.code()).isEqualTo(ResultCode.ATTACHMENT_DELETED);
		assertThat(deleteReplay.replayed()).isTrue();
	}

	@Test
	void attachedKeyDeadlinesAreCheckedAtBackendTime() {
		LeaseRecord lease = this.kit.acquired(this.kit.identity("t1"), "alice");
		Instant past = Instant.now().minusSeconds(5);
		assertThat(this.kit.store().putAttached(new AttachPutRequest(lease.handle(), "k", "v", "request_p",
				past)).code())
			.isEqualTo(ResultCode.DEADLINE_EXCEEDED);
		assertThat(this.kit.store().getAttached(new AttachGetRequest(lease.identity().scope(), "k", "c", past)).code())
			.isEqualTo(ResultCode.DEADLINE_EXCEEDED);
		assertThat(this.kit.listAttached(lease).names()).isEmpty();
		Instant farAhead = Instant.now().plus(Duration.ofDays(1));
		assertThat(this.kit.store().putAttached(new AttachPutRequest(lease.handle(), "k", "v", "request_f", farAhead))
			.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
	}

	/**
	 * Contract: every call has a finite deadline, and one beyond the server's maximum is invalid, whatever the call:
	 * reads and commit authorizations too (none of them may wait on a silent backend longer than the maximum
	 * deadline). Nothing changes: the lease is still the holder's.
	 */
	@Test
	void everyCallWithADeadlineBeyondTheMaximumIsInvalidAndChangesNothing() {
		LeaseRecord lease = this.kit.acquired(this.kit.identity("t1"), "alice");
		assertThat(this.kit.put(lease.handle(), "k", "v").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		Instant farAhead = Instant.now().plus(Duration.ofDays(1));
		ProgramScope scope = lease.identity().scope();
		assertThat(this.kit.store().inspect(InspectRequest.byIdentity(lease.identity(), "corr_f", farAhead)).code())
			.isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.kit.store().inspect(InspectRequest.byLeaseId(scope, lease.leaseId(), "corr_f", farAhead))
			.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.kit.store().authorizeCommit(new CommitRequest(lease.handle(), "corr_f", farAhead)).code())
			.isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.kit.store().list(new ListRequest(new ListFilter.ByProgram(scope), null, 10, "corr_f",
				farAhead)).code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.kit.store().getAttached(new AttachGetRequest(scope, "k", "corr_f", farAhead)).code())
			.isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.kit.store().listAttached(new AttachListRequest(scope, lease.leaseId(), "corr_f", farAhead))
			.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.kit.store().deleteAttached(new AttachDeleteRequest(lease.handle(), "k",
				Identifiers.generate("request"), farAhead)).code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.kit.store().renew(new RenewRequest(lease.handle(), Identifiers.generate("request"), farAhead))
			.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.kit.store().release(new ReleaseRequest(lease.handle(), Identifiers.generate("request"),
				farAhead)).code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.kit.inspect(lease.identity()).lease()).isEqualTo(lease);
		assertThat(this.kit.get(scope, "k").value()).isEqualTo("v");
	}

}
