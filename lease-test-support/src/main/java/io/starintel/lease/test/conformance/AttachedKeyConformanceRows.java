package io.starintel.lease.test.conformance;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.internal.AttachedKeys;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The attached-key rows of {@link LeaseStoreConformanceKit} ({@code docs/attachments.md}): put, get, list and delete
 * under the exact active lease, a key's single owner, the per-lease limit, validation, idempotency, backend-time
 * deadlines, and the deletion of every key in the transition that ends the lease.
 */
abstract class AttachedKeyConformanceRows extends LeaseStoreConformanceFixture {

	private void assertGone(LeaseRecord lease, String... names) {
		for (String name : names) {
			AttachmentResult read = get(lease.identity().scope(), name);
			assertThat(read.code()).as(name).isEqualTo(ResultCode.LEASE_NOT_FOUND);
			assertThat(read.reason()).isEqualTo(Reason.ATTACHMENT_NOT_FOUND);
			assertThat(read.value()).isNull();
		}
		assertThat(listAttached(lease).code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	@Test
	void attachedKeysPutGetListDelete() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		ProgramScope scope = lease.identity().scope();
		assertThat(put(lease.handle(), "progress", "41").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(put(lease.handle(), "progress", "42").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(put(lease.handle(), "claim.marker_1", "").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		AttachmentResult read = get(scope, "progress");
		assertThat(read.code()).isEqualTo(ResultCode.ATTACHMENT_READ);
		assertThat(read.value()).isEqualTo("42");
		assertThat(read.leaseId()).isEqualTo(lease.leaseId());
		assertThat(get(scope, "claim.marker_1").value()).isEmpty();
		AttachmentResult listed = listAttached(lease);
		assertThat(listed.code()).isEqualTo(ResultCode.ATTACHMENTS_LISTED);
		assertThat(listed.names()).containsExactly("claim.marker_1", "progress");
		assertThat(deleteAttached(lease.handle(), "progress").code()).isEqualTo(ResultCode.ATTACHMENT_DELETED);
		AttachmentResult again = deleteAttached(lease.handle(), "progress");
		assertThat(again.code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		assertThat(again.reason()).isEqualTo(Reason.ATTACHMENT_NOT_FOUND);
		assertThat(get(scope, "progress").code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		assertThat(listAttached(lease).names()).containsExactly("claim.marker_1");
		assertThat(get(ProgramScope.of("tenant-kit", this.program + "x"), "claim.marker_1").code())
			.isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	@Test
	void putWithLeaseRequiresTheExactActiveLease() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		LeaseHandle h = lease.handle();
		AttachmentResult stale = put(new LeaseHandle(h.identity(), h.leaseId(), h.ownerPrincipalId(),
				h.serviceInstanceId(), h.fencingToken() + 1), "k1", "v");
		assertThat(stale.code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(put(new LeaseHandle(h.identity(), h.leaseId(), "mallory", h.serviceInstanceId(), h.fencingToken()),
				"k1", "v").code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(get(lease.identity().scope(), "k1").code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		assertThat(release(h).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertThat(put(h, "k1", "v").code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(deleteAttached(h, "k1").code()).isEqualTo(ResultCode.LEASE_LOST);
	}

	@Test
	void releaseDeletesEveryAttachedKeyInTheTransition() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		for (int i = 0; i < 20; i++) {
			assertThat(put(lease.handle(), "k" + i, "v" + i).code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		}
		assertThat(release(lease.handle()).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertGone(lease, "k0", "k7", "k19");
		LeaseRecord next = acquired(identity("t1"), "bob");
		assertThat(listAttached(next).names()).isEmpty();
		assertThat(put(next.handle(), "k7", "again").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(get(next.identity().scope(), "k7").value()).isEqualTo("again");
	}

	@Test
	void revokeAndForceReleaseDeleteEveryAttachedKey() {
		LeaseRecord first = acquired(identity("t1"), "alice");
		put(first.handle(), "a", "1");
		assertThat(this.store.revoke(admin(Operation.REVOKE, first)).code()).isEqualTo(ResultCode.LEASE_REVOKED);
		assertGone(first, "a");
		LeaseRecord second = acquired(identity("t1"), "bob");
		put(second.handle(), "a", "2");
		assertThat(this.store.forceRelease(admin(Operation.FORCE_RELEASE, second)).code())
			.isEqualTo(ResultCode.LEASE_RELEASED);
		assertGone(second, "a");
	}

	@Test
	void expiryDeletesEveryAttachedKey() {
		LeaseResult result = this.store.acquire(acquireRequest(identity("t1"), "alice", 2_000));
		LeaseRecord lease = result.lease();
		put(lease.handle(), "a", "1");
		put(lease.handle(), "b", "2");
		advanceBackendTime(2_100);
		assertGone(lease, "a", "b");
		assertThat(put(lease.handle(), "c", "3").code()).isEqualTo(ResultCode.LEASE_LOST);
		LeaseRecord other = acquired(identity("t2"), "bob");
		assertThat(put(other.handle(), "a", "mine").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
	}

	@Test
	void aKeyBelongsToAtMostOneLease() {
		LeaseRecord a = acquired(identity("t1"), "alice");
		LeaseRecord b = acquired(identity("t2"), "bob");
		put(a.handle(), "shared", "from-a");
		AttachmentResult refused = put(b.handle(), "shared", "from-b");
		assertThat(refused.code()).isEqualTo(ResultCode.LEASE_CONFLICT);
		assertThat(refused.reason()).isEqualTo(Reason.ATTACHED_TO_ANOTHER_LEASE);
		assertThat(deleteAttached(b.handle(), "shared").reason()).isEqualTo(Reason.ATTACHMENT_NOT_FOUND);
		assertThat(get(a.identity().scope(), "shared").value()).isEqualTo("from-a");
		assertThat(deleteAttached(a.handle(), "shared").code()).isEqualTo(ResultCode.ATTACHMENT_DELETED);
		assertThat(put(b.handle(), "shared", "from-b").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(get(a.identity().scope(), "shared").leaseId()).isEqualTo(b.leaseId());
		assertThat(listAttached(a).names()).isEmpty();
	}

	@Test
	void aLateCleanupNeverTouchesASuccessorsKeys() {
		LeaseRecord first = acquired(identity("t1"), "alice");
		put(first.handle(), "k", "first");
		ReleaseRequest releaseFirst = new ReleaseRequest(first.handle(), Identifiers.generate("request"), deadline());
		assertThat(this.store.release(releaseFirst).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		LeaseRecord successor = acquired(identity("t1"), "bob");
		put(successor.handle(), "k", "second");
		assertThat(this.store.release(releaseFirst).replayed()).isTrue();
		assertThat(release(first.handle()).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.store.revoke(admin(Operation.REVOKE, first)).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(deleteAttached(first.handle(), "k").code()).isEqualTo(ResultCode.LEASE_LOST);
		AttachmentResult read = get(successor.identity().scope(), "k");
		assertThat(read.value()).isEqualTo("second");
		assertThat(read.leaseId()).isEqualTo(successor.leaseId());
		assertThat(listAttached(successor).names()).containsExactly("k");
	}

	@Test
	void attachedKeysPerLeaseAreBounded() {
		this.store = createStoreWithAttachedKeyLimit(3);
		LeaseRecord lease = acquired(identity("t1"), "alice");
		for (String name : List.of("a", "b", "c")) {
			assertThat(put(lease.handle(), name, "v").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		}
		AttachmentResult refused = put(lease.handle(), "d", "v");
		assertThat(refused.code()).isEqualTo(ResultCode.LEASE_RATE_LIMITED);
		assertThat(refused.reason()).isEqualTo(Reason.ATTACHED_KEY_LIMIT_REACHED);
		assertThat(put(lease.handle(), "c", "replaced").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		deleteAttached(lease.handle(), "a");
		assertThat(put(lease.handle(), "d", "v").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(listAttached(lease).names()).containsExactly("b", "c", "d");
	}

	@Test
	void attachedNamesAndValuesAreValidated() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		for (String bad : new String[] { "", "a*b", "a?", "[a]", "a/b", "..", "a..b", ".hidden", "a:b", "a b",
				"a\u001fb", "x".repeat(AttachedKeys.MAX_NAME_LENGTH + 1) }) {
			assertThat(AttachedKeys.isValidName(bad)).as(bad).isFalse();
			assertThatExceptionOfType(InvalidLeaseRequestException.class)
				.isThrownBy(() -> new AttachPutRequest(lease.handle(), bad, "v", "request_1", deadline()));
		}
		assertThat(AttachedKeys.isValidName("x".repeat(AttachedKeys.MAX_NAME_LENGTH))).isTrue();
		AttachmentResult large = put(lease.handle(), "big", "x".repeat(AttachedKeys.DEFAULT_MAXIMUM_VALUE_BYTES + 1));
		assertThat(large.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(large.detail()).contains("attached_value").doesNotContain("xxx");
		assertThat(put(lease.handle(), "big", "x".repeat(AttachedKeys.DEFAULT_MAXIMUM_VALUE_BYTES)).code())
			.isEqualTo(ResultCode.ATTACHMENT_STORED);
	}

	@Test
	void attachedKeyMutationsAreIdempotentByRequestId() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		AttachPutRequest request = new AttachPutRequest(lease.handle(), "k", "v1", Identifiers.generate("request"),
				deadline());
		AttachmentResult first = this.store.putAttached(request);
		put(lease.handle(), "k", "v2");
		AttachmentResult replay = this.store.putAttached(request);
		assertThat(first.replayed()).isFalse();
		assertThat(replay.code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(replay.replayed()).isTrue();
		assertThat(get(lease.identity().scope(), "k").value()).isEqualTo("v2");
		AttachPutRequest changed = new AttachPutRequest(lease.handle(), "k", "v3", request.requestId(), deadline());
		assertThat(this.store.putAttached(changed).code()).isEqualTo(ResultCode.IDEMPOTENCY_CONFLICT);
		AttachDeleteRequest delete = new AttachDeleteRequest(lease.handle(), "k", Identifiers.generate("request"),
				deadline());
		assertThat(this.store.deleteAttached(delete).code()).isEqualTo(ResultCode.ATTACHMENT_DELETED);
		AttachmentResult deleteReplay = this.store.deleteAttached(delete);
		assertThat(deleteReplay.code()).isEqualTo(ResultCode.ATTACHMENT_DELETED);
		assertThat(deleteReplay.replayed()).isTrue();
	}

	@Test
	void attachedKeyDeadlinesAreCheckedAtBackendTime() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		Instant past = Instant.now().minusSeconds(5);
		assertThat(this.store.putAttached(new AttachPutRequest(lease.handle(), "k", "v", "request_p", past)).code())
			.isEqualTo(ResultCode.DEADLINE_EXCEEDED);
		assertThat(this.store.getAttached(new AttachGetRequest(lease.identity().scope(), "k", "c", past)).code())
			.isEqualTo(ResultCode.DEADLINE_EXCEEDED);
		assertThat(listAttached(lease).names()).isEmpty();
		Instant farAhead = Instant.now().plus(Duration.ofDays(1));
		assertThat(this.store.putAttached(new AttachPutRequest(lease.handle(), "k", "v", "request_f", farAhead))
			.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
	}

}
