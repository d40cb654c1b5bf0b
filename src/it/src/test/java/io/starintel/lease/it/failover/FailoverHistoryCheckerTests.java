package io.starintel.lease.it.failover;

import java.util.ArrayList;
import java.util.List;

import io.starintel.lease.it.failover.FailoverEvent.Op;
import io.starintel.lease.it.failover.FailoverHistoryChecker.Report;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker of the failover load harness on synthetic histories: a clean history passes, and each kind of
 * violation is flagged (and only where it is one: concurrent calls are never ordered).
 */
class FailoverHistoryCheckerTests {

	private final List<FailoverEvent> history = new ArrayList<>();

	private long seq;

	@Test
	void aCleanHistoryHasNoViolations() {
		grant("t", "L1", 10, 1, 2, 10_000);
		commit("t", "L1", 10, 3, 4);
		renew("t", "L1", 10, 5, 6, "lease_renewed", 12_000);
		commit("t", "L1", 10, 7, 8);
		end(Op.RELEASE, "t", "L1", 10, 9, 10, "lease_released");
		grant("t", "L2", 20, 11, 12, 20_000);
		commit("t", "L2", 20, 13, 14);
		end(Op.REVOKE, "t", "L2", 20, 15, 16, "lease_revoked");
		commit("t", "L2", 20, 17, 18, "lease_lost");
		renew("t", "L2", 20, 19, 20, "lease_lost", -1);
		Report report = check();
		assertThat(report.violations()).isEmpty();
		assertThat(report.total("grants")).isEqualTo(2);
		assertThat(report.total("lease_commit_authorized")).isEqualTo(3);
		assertThat(report.total("lease_lost")).isEqualTo(2);
	}

	@Test
	void aCommitOfAnotherLeaseBetweenTwoCommitsOfOneLeaseIsAnOverlap() {
		grant("t", "L1", 10, 1, 2, 60_000);
		commit("t", "L1", 10, 3, 4);
		grant("t", "L2", 20, 5, 6, 60_000);
		commit("t", "L2", 20, 7, 8);
		commit("t", "L1", 10, 9, 10);
		Report report = check();
		assertThat(report.violations(FailoverHistoryChecker.OVERLAP)).singleElement()
			.satisfies((v) -> assertThat(v.detail()).contains("lease L2").contains("lease L1"));
		assertThat(report.violations(FailoverHistoryChecker.TOKEN_BACKWARDS)).singleElement()
			.satisfies((v) -> assertThat(v.detail()).contains("token 10").contains("token 20"));
	}

	@Test
	void aLowerTokenCommitAfterAHigherTokenCommitWasAnsweredGoesBackwards() {
		grant("t", "L2", 20, 1, 2, 60_000);
		commit("t", "L2", 20, 3, 4);
		commit("t", "L1", 10, 5, 6);
		Report report = check();
		assertThat(report.violations(FailoverHistoryChecker.TOKEN_BACKWARDS)).hasSize(1);
		// other targets are independent
		this.history.clear();
		commit("t1", "L2", 20, 3, 4);
		commit("t2", "L1", 10, 5, 6);
		assertThat(check().violations()).isEmpty();
	}

	@Test
	void concurrentCommitsAreNotOrdered() {
		commit("t", "L2", 20, 1, 10);
		commit("t", "L1", 10, 2, 3);
		commit("t", "L1", 10, 4, 5);
		assertThat(check().violations()).isEmpty();
	}

	@Test
	void aSuccessAfterAnAcknowledgedEndIsFlagged() {
		grant("t", "L1", 10, 1, 2, 60_000);
		end(Op.REVOKE, "t", "L1", 10, 3, 4, "lease_revoked");
		renew("t", "L1", 10, 5, 6, "lease_renewed", 70_000);
		commit("t", "L1", 10, 7, 8);
		end(Op.RELEASE, "t", "L1", 10, 9, 10, "lease_released");
		Report report = check();
		assertThat(report.violations(FailoverHistoryChecker.AFTER_END)).hasSize(3)
			.extracting(FailoverHistoryChecker.Violation::detail)
			.anySatisfy((d) -> assertThat(d).startsWith("RENEW of lease L1"))
			.anySatisfy((d) -> assertThat(d).startsWith("AUTHORIZE of lease L1"))
			.anySatisfy((d) -> assertThat(d).startsWith("RELEASE of lease L1"));
	}

	@Test
	void anEndResolvedAfterOutcomeUnknownCountsFromTheResolve() {
		grant("t", "L1", 10, 1, 2, 60_000);
		FailoverEvent release = end(Op.RELEASE, "t", "L1", 10, 3, 4, "lease_outcome_unknown");
		commit("t", "L1", 10, 5, 6); // before the outcome is known: not a violation
		add(Op.RESOLVE, "t", release.requestId(), "L1", 10, "lease_released", 7, 8, -1, -1, "RELEASE");
		commit("t", "L1", 10, 9, 10);
		assertThat(check().violations(FailoverHistoryChecker.AFTER_END)).singleElement()
			.satisfies((v) -> assertThat(v.detail()).contains("AUTHORIZE").contains("RELEASE"));
	}

	@Test
	void grantTokensMustIncreaseAcrossGrantsAndResolvedGrants() {
		grant("t", "L1", 100, 1, 2, 60_000);
		grant("t", "L2", 50, 3, 4, 60_000);
		FailoverEvent unknown = add(Op.ACQUIRE, "t", "req-u", FailoverEvent.NONE, -1, "lease_outcome_unknown", 5, 6,
				-1, -1, FailoverEvent.NONE);
		add(Op.RESOLVE, "t", unknown.requestId(), "L3", 100, "lease_acquired", 7, 8, 1, 60_000, "ACQUIRE");
		Report report = check();
		assertThat(report.violations(FailoverHistoryChecker.GRANT_BACKWARDS)).hasSize(2)
			.extracting(FailoverHistoryChecker.Violation::detail)
			.anySatisfy((d) -> assertThat(d).startsWith("lease L2 granted with token 50"))
			.anySatisfy((d) -> assertThat(d).startsWith("lease L3 granted with token 100"));
		assertThat(report.total("lease_outcome_unknown")).isEqualTo(1);
	}

	@Test
	void aCommitOrRenewalAtOrAfterTheAcknowledgedExpiryIsFlaggedUnlessARenewalOutcomeIsUnknown() {
		grant("t", "L1", 10, 1, 2, 1_000);
		add(Op.AUTHORIZE, "t", "c1", "L1", 10, "lease_commit_authorized", 3, 4, 999, 1_000, FailoverEvent.NONE);
		add(Op.AUTHORIZE, "t", "c2", "L1", 10, "lease_commit_authorized", 5, 6, 1_500, 1_000, FailoverEvent.NONE);
		add(Op.RENEW, "t", "r1", "L1", 10, "lease_renewed", 7, 8, 1_600, 5_000, FailoverEvent.NONE);
		Report report = check();
		assertThat(report.violations(FailoverHistoryChecker.AFTER_EXPIRY)).hasSize(2)
			.extracting(FailoverHistoryChecker.Violation::detail)
			.anySatisfy((d) -> assertThat(d).startsWith("AUTHORIZE of lease L1").contains("500 ms after"))
			.anySatisfy((d) -> assertThat(d).startsWith("RENEW of lease L1"));

		this.history.clear();
		grant("t", "L1", 10, 1, 2, 1_000);
		add(Op.RENEW, "t", "r1", "L1", 10, "lease_outcome_unknown", 3, 4, -1, -1, FailoverEvent.NONE);
		add(Op.AUTHORIZE, "t", "c2", "L1", 10, "lease_commit_authorized", 5, 6, 1_500, 4_000, FailoverEvent.NONE);
		assertThat(check().violations()).isEmpty();
	}

	@Test
	void anAcknowledgedChangeThatNoLongerResolvesWasLost() {
		FailoverEvent acquire = grant("t", "L1", 10, 1, 2, 60_000);
		FailoverEvent release = end(Op.RELEASE, "t", "L1", 10, 3, 4, "lease_released");
		FailoverEvent unknown = end(Op.REVOKE, "t", "L1", 10, 5, 6, "lease_outcome_unknown");
		add(Op.CHECK_RESOLVE, "t", acquire.requestId(), "L1", 10, "lease_acquired", 10, 11, -1, -1, "ACQUIRE");
		add(Op.CHECK_RESOLVE, "t", release.requestId(), FailoverEvent.NONE, -1, "lease_not_found", 12, 13, -1, -1,
				"RELEASE");
		add(Op.CHECK_RESOLVE, "t", unknown.requestId(), FailoverEvent.NONE, -1, "lease_not_found", 14, 15, -1, -1,
				"REVOKE");
		Report report = check();
		assertThat(report.violations(FailoverHistoryChecker.LOST)).singleElement()
			.satisfies((v) -> assertThat(v.detail()).startsWith("RELEASE " + release.requestId()));
		assertThat(report.total("checked_resolves")).isEqualTo(3);

		this.history.clear();
		FailoverEvent granted = grant("t", "L1", 10, 1, 2, 60_000);
		add(Op.CHECK_RESOLVE, "t", granted.requestId(), "L9", 90, "lease_acquired", 10, 11, -1, -1, "ACQUIRE");
		assertThat(check().violations(FailoverHistoryChecker.LOST)).singleElement()
			.satisfies((v) -> assertThat(v.detail()).contains("lease L9"));
	}

	@Test
	void countsOutcomeUnknownBackendUnavailableAndRecoveryRequired() {
		add(Op.ACQUIRE, "t", "a1", FailoverEvent.NONE, -1, "lease_outcome_unknown", 1, 2, -1, -1, FailoverEvent.NONE);
		FailoverEvent refused = new FailoverEvent("w", this.seq++, Op.RENEW, "t", "r1", "p", "L1", 10,
				"lease_backend_unavailable", "recovery_required", 3, 4, -1, -1, FailoverEvent.NONE);
		this.history.add(refused);
		add(Op.RENEW, "t", "r2", "L1", 10, "lease_backend_unavailable", 5, 6, -1, -1, FailoverEvent.NONE);
		add(Op.FAULT, "kill-9 7100", FailoverEvent.NONE, FailoverEvent.NONE, -1, FailoverEvent.NONE, 7, 8, -1, -1,
				FailoverEvent.NONE);
		Report report = check();
		assertThat(report.total("lease_outcome_unknown")).isEqualTo(1);
		assertThat(report.total("lease_backend_unavailable")).isEqualTo(2);
		assertThat(report.total("recovery_required")).isEqualTo(1);
		assertThat(report.total("faults")).isEqualTo(1);
		assertThat(report.answers()).containsEntry("RENEW lease_backend_unavailable/recovery_required", 1L);
		assertThat(report.text()).contains("violations: 0");
	}

	@Test
	void linesRoundTrip() {
		FailoverEvent event = new FailoverEvent("worker-1", 7, Op.RESOLVE, "target-3", "request_01", "prn_a",
				"lease_01", 1_839_566_000_000L, "lease_acquired", "none", 123, 456, 1_700_000_000_000L,
				1_700_000_060_000L, "ACQUIRE");
		assertThat(FailoverEvent.parse(event.toLine())).isEqualTo(event);
	}

	private Report check() {
		return FailoverHistoryChecker.check(this.history);
	}

	private FailoverEvent grant(String target, String lease, long token, long invoke, long ack, long expiresAtMs) {
		return add(Op.ACQUIRE, target, "acq-" + lease, lease, token, "lease_acquired", invoke, ack, 1, expiresAtMs,
				FailoverEvent.NONE);
	}

	private void commit(String target, String lease, long token, long invoke, long ack) {
		commit(target, lease, token, invoke, ack, "lease_commit_authorized");
	}

	private void commit(String target, String lease, long token, long invoke, long ack, String code) {
		add(Op.AUTHORIZE, target, "corr-" + this.seq, lease, token, code, invoke, ack, -1, -1, FailoverEvent.NONE);
	}

	private void renew(String target, String lease, long token, long invoke, long ack, String code, long expiresAtMs) {
		add(Op.RENEW, target, "ren-" + this.seq, lease, token, code, invoke, ack, -1, expiresAtMs, FailoverEvent.NONE);
	}

	private FailoverEvent end(Op op, String target, String lease, long token, long invoke, long ack, String code) {
		return add(op, target, op.name().toLowerCase() + "-" + this.seq, lease, token, code, invoke, ack, -1, -1,
				FailoverEvent.NONE);
	}

	private FailoverEvent add(Op op, String target, String requestId, String lease, long token, String code,
			long invoke, long ack, long decidedAtMs, long expiresAtMs, String ref) {
		FailoverEvent event = new FailoverEvent("w" + (this.seq % 3), this.seq++, op, target, requestId, "prn",
				lease, token, code, "none", invoke, ack, decidedAtMs, expiresAtMs, ref);
		this.history.add(event);
		return event;
	}

}
