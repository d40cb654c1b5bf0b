package io.starintel.lease.test.conformance;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conformance of inspect, list and the privileged transitions: force-release and revoke compare against the observed
 * lease, inspect by lease id stays inside its program, list cursors are opaque and tamper-evident, pages are stable.
 */
@ExtendWith(StoreUnderTestResolver.class)
public abstract class ListAndAdminConformance {

	private LeaseStoreFixture kit;

	@BeforeEach
	void setUpFixture(LeaseStoreUnderTest underTest) {
		this.kit = new LeaseStoreFixture(underTest);
	}

	@Test
	void forceReleaseAndRevokeCompareAgainstObservedLease() {
		LeaseRecord first = this.kit.acquired(this.kit.identity("t1"), "alice");
		assertThat(this.kit.store().forceRelease(this.kit.admin(Operation.FORCE_RELEASE, first)).code())
			.isEqualTo(ResultCode.LEASE_RELEASED);
		LeaseRecord successor = this.kit.acquired(this.kit.identity("t1"), "bob");
		assertThat(this.kit.store().revoke(this.kit.admin(Operation.REVOKE, first)).code())
			.isEqualTo(ResultCode.LEASE_LOST);
		LeaseResult revoked = this.kit.store().revoke(this.kit.admin(Operation.REVOKE, successor));
		assertThat(revoked.code()).isEqualTo(ResultCode.LEASE_REVOKED);
		assertThat(revoked.lease().state()).isEqualTo(LeaseState.REVOKED);
		assertThat(this.kit.renew(successor.handle()).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.kit.store().authorizeCommit(new CommitRequest(successor.handle(), "corr_1",
				this.kit.deadline())).code())
			.isEqualTo(ResultCode.LEASE_LOST);
	}

	@Test
	void inspectByLeaseIdStaysInsideItsProgramScope() {
		LeaseRecord lease = this.kit.acquired(this.kit.identity("t1"), "alice");
		assertThat(this.kit.store().inspect(InspectRequest.byLeaseId(lease.identity().scope(), lease.leaseId(), "c",
				this.kit.deadline()))
			.lease()).isEqualTo(lease);
		ProgramScope other = ProgramScope.of("tenant-kit", this.kit.program() + "x");
		assertThat(this.kit.store().inspect(InspectRequest.byLeaseId(other, lease.leaseId(), "c",
				this.kit.deadline())).code())
			.isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	/**
	 * Issue 15: list cursors are opaque (no lock key or key digest recoverable from them) and tamper-evident (an
	 * altered cursor, or one issued for another filter, is invalid_lease_request).
	 */
	@Test
	void listCursorIsOpaqueAndTamperEvident() {
		for (int i = 0; i < 3; i++) {
			this.kit.acquired(this.kit.identity("t" + i), "alice");
		}
		ProgramScope scope = this.kit.identity("t0").scope();
		LeasePage page = this.kit.store().list(new ListRequest(new ListFilter.ByProgram(scope), null, 1, "c",
				this.kit.deadline()));
		String cursor = page.nextCursor();
		assertThat(cursor).isNotNull();
		byte[] raw = Base64.getUrlDecoder().decode(cursor);
		String decoded = new String(raw, StandardCharsets.ISO_8859_1);
		for (LeaseRecord lease : page.leases()) {
			assertThat(cursor).doesNotContain(lease.identity().keyDigest());
			assertThat(decoded).doesNotContain(lease.identity().keyDigest()).doesNotContain(lease.lockKey());
		}
		raw[raw.length - 1] ^= 1;
		String tampered = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
		assertThat(this.kit.store().list(new ListRequest(new ListFilter.ByProgram(scope), tampered, 1, "c",
				this.kit.deadline()))
			.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.kit.store().list(new ListRequest(new ListFilter.ByOwner(scope, "alice"), cursor, 1, "c",
				this.kit.deadline()))
			.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.kit.store().list(new ListRequest(new ListFilter.ByProgram(scope), cursor, 1, "c",
				this.kit.deadline()))
			.code()).isEqualTo(ResultCode.LEASE_LISTED);
	}

	@Test
	void listByProgramOwnerAndTargetPagesInStableOrder() {
		for (int i = 0; i < 7; i++) {
			this.kit.acquired(this.kit.identity("t" + i), (i % 2 == 0) ? "alice" : "bob");
		}
		ProgramScope scope = this.kit.identity("t0").scope();
		List<String> seen = new ArrayList<>();
		String cursor = null;
		do {
			LeasePage page = this.kit.store().list(new ListRequest(new ListFilter.ByProgram(scope), cursor, 3, "c",
					this.kit.deadline()));
			assertThat(page.code()).isEqualTo(ResultCode.LEASE_LISTED);
			assertThat(page.leases().size()).isLessThanOrEqualTo(3);
			page.leases().forEach(l -> seen.add(l.lockKey()));
			cursor = page.nextCursor();
		}
		while (cursor != null);
		assertThat(seen).hasSize(7).doesNotHaveDuplicates().isSorted();
		assertThat(this.kit.store().list(new ListRequest(new ListFilter.ByOwner(scope, "alice"), null, 100, "c",
				this.kit.deadline()))
			.leases()).hasSize(4);
		assertThat(this.kit.store()
			.list(new ListRequest(new ListFilter.ByTarget(scope, "starintel-target", "t3"), null, 100, "c",
					this.kit.deadline()))
			.leases()).hasSize(1);
		ProgramScope other = ProgramScope.of("tenant-kit", this.kit.program() + "x");
		assertThat(this.kit.store().list(new ListRequest(new ListFilter.ByProgram(other), null, 100, "c",
				this.kit.deadline())).leases())
			.isEmpty();
	}

}
