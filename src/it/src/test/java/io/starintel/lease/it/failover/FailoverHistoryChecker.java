package io.starintel.lease.it.failover;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.starintel.lease.it.failover.FailoverEvent.Op;

/**
 * Checks a whole failover load history (every worker's events, merged) against what a fenced lease store must
 * guarantee across failovers. "Before" is real time: event x precedes y when x was answered before y was invoked
 * ({@code x.ackNanos < y.invokeNanos}); overlapping calls are concurrent and never ordered.
 *
 * <ol>
 * <li>{@value #OVERLAP}: no two leases' authorized commits on one target interleave: lease L's commits span
 * (first answered, last invoked); no other lease may have a commit authorized entirely inside that span.</li>
 * <li>{@value #TOKEN_BACKWARDS}: tokens never go backwards across authorized commits on one target: a commit
 * authorized after another one was answered carries a token at least as high.</li>
 * <li>{@value #AFTER_END}: no lease succeeds (renew, commit, release, revoke) after its end (a release or revoke
 * answered successfully, or resolved to success) was acknowledged.</li>
 * <li>{@value #GRANT_BACKWARDS}: a grant (an acquisition answered, or resolved, successfully) after another one on
 * the same target was answered carries a strictly higher token.</li>
 * <li>{@value #AFTER_EXPIRY}: no commit or renewal is authorized at a backend time at or past the lease's expiry
 * as last acknowledged before it (skipped when a renewal with an unknown outcome came in between).</li>
 * <li>{@value #LOST}: a mutation answered successfully resolves, when the harness checks it after the run
 * ({@link Op#CHECK_RESOLVE}), to the same result; {@code lease_not_found} means the acknowledged change was lost.</li>
 * </ol>
 * It also counts every answer by operation and code (and reason), and the outcome-unknown, backend-unavailable and
 * recovery-required answers.
 */
public final class FailoverHistoryChecker {

	public static final String OVERLAP = "overlapping-commits";

	public static final String TOKEN_BACKWARDS = "commit-token-backwards";

	public static final String AFTER_END = "success-after-acknowledged-end";

	public static final String GRANT_BACKWARDS = "grant-token-not-increasing";

	public static final String AFTER_EXPIRY = "success-after-expiry";

	public static final String LOST = "acknowledged-change-lost";

	private static final int REPORTED_PER_RULE = 15;

	private FailoverHistoryChecker() {
	}

	/** One broken guarantee. */
	public record Violation(String rule, String target, String detail) {

		@Override
		public String toString() {
			return this.rule + " on " + this.target + ": " + this.detail;
		}

	}

	/** The violations, the answers counted, and a printable summary. */
	public record Report(List<Violation> violations, Map<String, Long> answers, Map<String, Long> totals) {

		public List<Violation> violations(String rule) {
			return this.violations.stream().filter((v) -> v.rule().equals(rule)).toList();
		}

		public long total(String name) {
			return this.totals.getOrDefault(name, 0L);
		}

		/** A readable report: totals, answers by operation and code, and the first violations of each rule. */
		public String text() {
			StringBuilder text = new StringBuilder();
			text.append("totals: ").append(this.totals).append('\n');
			text.append("answers:\n");
			this.answers.forEach((answer, count) -> text.append(String.format("  %-60s %8d%n", answer, count)));
			Map<String, List<Violation>> byRule = this.violations.stream()
				.collect(Collectors.groupingBy(Violation::rule, TreeMap::new, Collectors.toList()));
			text.append("violations: ").append(this.violations.size()).append('\n');
			byRule.forEach((rule, list) -> {
				text.append("  ").append(rule).append(": ").append(list.size()).append('\n');
				list.stream().limit(REPORTED_PER_RULE).forEach((v) -> text.append("    ").append(v).append('\n'));
			});
			return text.toString();
		}

	}

	/** Checks a history (any order). */
	public static Report check(List<FailoverEvent> history) {
		return new Run(history).check();
	}

	/** A grant: a lease, its target and token, when it was invoked and acknowledged, its expiry. */
	private record Grant(String leaseId, String target, long token, long invoke, long ack, long expiresAtMs,
			String requestId) {

	}

	private static final class Run {

		private final List<FailoverEvent> history;

		private final List<Violation> violations = new ArrayList<>();

		private final Map<String, FailoverEvent> originals = new HashMap<>();

		private final Map<String, Grant> grants = new LinkedHashMap<>();

		Run(List<FailoverEvent> history) {
			this.history = history;
		}

		Report check() {
			for (FailoverEvent event : this.history) {
				if (event.op() == Op.ACQUIRE || event.op() == Op.RENEW || event.op() == Op.RELEASE
						|| event.op() == Op.REVOKE) {
					this.originals.putIfAbsent(event.requestId(), event);
				}
			}
			collectGrants();
			Map<String, List<FailoverEvent>> commitsByTarget = new HashMap<>();
			for (FailoverEvent event : this.history) {
				if (event.op() == Op.AUTHORIZE && event.success()) {
					commitsByTarget.computeIfAbsent(event.target(), (t) -> new ArrayList<>()).add(event);
				}
			}
			commitsByTarget.forEach(this::checkOverlap);
			commitsByTarget.forEach(this::checkCommitTokens);
			checkGrantTokens();
			checkAfterEnd();
			checkAfterExpiry();
			checkLost();
			return new Report(List.copyOf(this.violations), answers(), totals());
		}

		private void collectGrants() {
			for (FailoverEvent event : this.history) {
				if (event.effectiveOp() != Op.ACQUIRE || !event.success() || event.op() == Op.CHECK_RESOLVE
						|| FailoverEvent.NONE.equals(event.leaseId())) {
					continue;
				}
				long invoke = event.invokeNanos();
				if (event.op() == Op.RESOLVE) {
					FailoverEvent original = this.originals.get(event.requestId());
					if (original != null) {
						invoke = original.invokeNanos();
					}
				}
				Grant grant = new Grant(event.leaseId(), event.target(), event.token(), invoke, event.ackNanos(),
						event.expiresAtMs(), event.requestId());
				this.grants.merge(event.leaseId(), grant, (a, b) -> (a.ack() <= b.ack()) ? a : b);
			}
		}

		/** Rule 1: another lease's commit entirely inside lease L's commit span. */
		private void checkOverlap(String target, List<FailoverEvent> commits) {
			List<FailoverEvent> byInvoke = new ArrayList<>(commits);
			byInvoke.sort(Comparator.comparingLong(FailoverEvent::invokeNanos));
			Map<String, long[]> spans = new LinkedHashMap<>();
			for (FailoverEvent commit : commits) {
				spans.merge(commit.leaseId(), new long[] { commit.ackNanos(), commit.invokeNanos() },
						(a, b) -> new long[] { Math.min(a[0], b[0]), Math.max(a[1], b[1]) });
			}
			spans.forEach((leaseId, span) -> {
				long firstAck = span[0];
				long lastInvoke = span[1];
				if (firstAck >= lastInvoke) {
					return;
				}
				java.util.Set<String> reported = new java.util.HashSet<>();
				for (int i = firstAfter(byInvoke, firstAck); i < byInvoke.size()
						&& byInvoke.get(i).invokeNanos() < lastInvoke; i++) {
					FailoverEvent inside = byInvoke.get(i);
					if (!inside.leaseId().equals(leaseId) && inside.ackNanos() < lastInvoke
							&& reported.add(inside.leaseId())) {
						this.violations.add(new Violation(OVERLAP, target, "lease " + inside.leaseId() + " (token "
								+ inside.token() + ", " + inside.worker() + ") had a commit authorized between two "
								+ "commits of lease " + leaseId + " (token " + tokenOf(leaseId, commits) + ")"));
					}
				}
			});
		}

		/** Rule 2: a commit invoked after a higher-token commit on the same target was answered. */
		private void checkCommitTokens(String target, List<FailoverEvent> commits) {
			List<FailoverEvent> byInvoke = new ArrayList<>(commits);
			byInvoke.sort(Comparator.comparingLong(FailoverEvent::invokeNanos));
			List<FailoverEvent> byAck = new ArrayList<>(commits);
			byAck.sort(Comparator.comparingLong(FailoverEvent::ackNanos));
			int acked = 0;
			FailoverEvent highest = null;
			for (FailoverEvent commit : byInvoke) {
				while (acked < byAck.size() && byAck.get(acked).ackNanos() < commit.invokeNanos()) {
					FailoverEvent done = byAck.get(acked++);
					if (highest == null || done.token() > highest.token()) {
						highest = done;
					}
				}
				if (highest != null && commit.token() < highest.token()) {
					this.violations.add(new Violation(TOKEN_BACKWARDS, target, "commit of lease " + commit.leaseId()
							+ " with token " + commit.token() + " (" + commit.worker() + ") authorized after the commit "
							+ "of lease " + highest.leaseId() + " with token " + highest.token() + " ("
							+ highest.worker() + ") was answered, " + micros(commit.invokeNanos() - highest.ackNanos())
							+ " µs earlier"));
				}
			}
		}

		/** Rule 4: grant tokens strictly increase in real-time order. */
		private void checkGrantTokens() {
			Map<String, List<Grant>> byTarget = this.grants.values()
				.stream()
				.collect(Collectors.groupingBy(Grant::target));
			byTarget.forEach((target, grants) -> {
				List<Grant> byInvoke = new ArrayList<>(grants);
				byInvoke.sort(Comparator.comparingLong(Grant::invoke));
				List<Grant> byAck = new ArrayList<>(grants);
				byAck.sort(Comparator.comparingLong(Grant::ack));
				int acked = 0;
				Grant highest = null;
				for (Grant grant : byInvoke) {
					while (acked < byAck.size() && byAck.get(acked).ack() < grant.invoke()) {
						Grant done = byAck.get(acked++);
						if (highest == null || done.token() > highest.token()) {
							highest = done;
						}
					}
					if (highest != null && grant.token() <= highest.token()) {
						this.violations.add(new Violation(GRANT_BACKWARDS, target, "lease " + grant.leaseId()
								+ " granted with token " + grant.token() + " after lease " + highest.leaseId()
								+ " had been granted with token " + highest.token()));
					}
				}
			});
		}

		/** Rule 3: a success of a lease invoked after its end was acknowledged. */
		private void checkAfterEnd() {
			Map<String, FailoverEvent> ends = new HashMap<>();
			for (FailoverEvent event : this.history) {
				Op op = event.effectiveOp();
				if ((op == Op.RELEASE || op == Op.REVOKE) && event.success() && event.op() != Op.CHECK_RESOLVE) {
					ends.merge(event.leaseId(), event, (a, b) -> (a.ackNanos() <= b.ackNanos()) ? a : b);
				}
			}
			for (FailoverEvent event : this.history) {
				boolean direct = event.op() == Op.RENEW || event.op() == Op.AUTHORIZE || event.op() == Op.RELEASE
						|| event.op() == Op.REVOKE;
				if (!direct || !event.success()) {
					continue;
				}
				FailoverEvent end = ends.get(event.leaseId());
				if (end != null && !end.requestId().equals(event.requestId())
						&& event.invokeNanos() > end.ackNanos()) {
					this.violations.add(new Violation(AFTER_END, event.target(), event.op() + " of lease "
							+ event.leaseId() + " (token " + event.token() + ", " + event.worker() + ") answered "
							+ event.code() + " " + micros(event.invokeNanos() - end.ackNanos()) + " µs after its "
							+ end.effectiveOp() + " was acknowledged (" + end.code() + " to " + end.worker() + ")"));
				}
			}
		}

		/** Rule 5: a commit or renewal decided at or after the lease's last acknowledged expiry. */
		private void checkAfterExpiry() {
			Map<String, List<FailoverEvent>> byLease = new HashMap<>();
			for (FailoverEvent event : this.history) {
				if (!FailoverEvent.NONE.equals(event.leaseId()) && event.op() != Op.CHECK_RESOLVE) {
					byLease.computeIfAbsent(event.leaseId(), (l) -> new ArrayList<>()).add(event);
				}
			}
			byLease.forEach((leaseId, events) -> {
				Grant grant = this.grants.get(leaseId);
				if (grant == null || grant.expiresAtMs() < 0) {
					return;
				}
				for (FailoverEvent event : events) {
					boolean checked = (event.op() == Op.AUTHORIZE || event.op() == Op.RENEW) && event.success()
							&& event.decidedAtMs() >= 0;
					if (!checked) {
						continue;
					}
					long known = grant.ack() < event.invokeNanos() ? grant.expiresAtMs() : -1;
					boolean uncertain = false;
					for (FailoverEvent other : events) {
						if (other.effectiveOp() != Op.RENEW || other == event || other.invokeNanos() >= event.invokeNanos()) {
							continue;
						}
						if (other.success() && other.ackNanos() < event.invokeNanos()) {
							known = Math.max(known, other.expiresAtMs());
						}
						else if (other.op() == Op.RENEW && "lease_outcome_unknown".equals(other.code())) {
							uncertain = true;
						}
					}
					if (!uncertain && known >= 0 && event.decidedAtMs() >= known) {
						this.violations.add(new Violation(AFTER_EXPIRY, event.target(), event.op() + " of lease "
								+ leaseId + " (token " + event.token() + ", " + event.worker() + ") authorized at backend "
								+ "time " + event.decidedAtMs() + ", " + (event.decidedAtMs() - known) + " ms after the "
								+ "lease's acknowledged expiry " + known));
					}
				}
			});
		}

		/** Rule 6: the harness's after-run resolves of acknowledged mutations. */
		private void checkLost() {
			Map<String, FailoverEvent> acknowledged = new HashMap<>();
			for (FailoverEvent event : this.history) {
				boolean mutation = event.op() == Op.ACQUIRE || event.op() == Op.RENEW || event.op() == Op.RELEASE
						|| event.op() == Op.REVOKE || event.op() == Op.RESOLVE;
				if (mutation && event.success()) {
					acknowledged.putIfAbsent(event.requestId(), event);
				}
			}
			for (FailoverEvent check : this.history) {
				if (check.op() != Op.CHECK_RESOLVE) {
					continue;
				}
				FailoverEvent original = acknowledged.get(check.requestId());
				if (original == null) {
					continue;
				}
				if ("lease_not_found".equals(check.code())) {
					this.violations.add(new Violation(LOST, original.target(), original.effectiveOp() + " "
							+ original.requestId() + " of lease " + original.leaseId() + " (token " + original.token()
							+ ", " + original.worker() + ") was answered " + original.code() + "; after the run it "
							+ "resolves to lease_not_found"));
				}
				else if (check.success() && (!check.code().equals(original.code())
						|| !FailoverEvent.NONE.equals(original.leaseId()) && !FailoverEvent.NONE.equals(check.leaseId())
								&& !check.leaseId().equals(original.leaseId()))) {
					this.violations.add(new Violation(LOST, original.target(), original.effectiveOp() + " "
							+ original.requestId() + " was answered " + original.code() + " for lease "
							+ original.leaseId() + "; after the run it resolves to " + check.code() + " for lease "
							+ check.leaseId()));
				}
			}
		}

		private Map<String, Long> answers() {
			Map<String, Long> answers = new TreeMap<>();
			for (FailoverEvent event : this.history) {
				if (event.op() == Op.FAULT) {
					continue;
				}
				String key = event.op() + (event.op() == Op.RESOLVE || event.op() == Op.CHECK_RESOLVE
						? "(" + event.ref() + ")" : "") + " " + event.code()
						+ ("none".equals(event.reason()) || FailoverEvent.NONE.equals(event.reason()) ? ""
								: "/" + event.reason());
				answers.merge(key, 1L, Long::sum);
			}
			return answers;
		}

		private Map<String, Long> totals() {
			Map<String, Long> totals = new LinkedHashMap<>();
			long calls = 0;
			for (FailoverEvent event : this.history) {
				if (event.op() == Op.FAULT) {
					totals.merge("faults", 1L, Long::sum);
					continue;
				}
				if (event.op() == Op.CHECK_RESOLVE) {
					totals.merge("checked_resolves", 1L, Long::sum);
					continue;
				}
				calls++;
				totals.merge(event.code(), 1L, Long::sum);
				if ("recovery_required".equals(event.reason())) {
					totals.merge("recovery_required", 1L, Long::sum);
				}
			}
			totals.put("calls", calls);
			totals.put("grants", (long) this.grants.size());
			totals.put("violations", (long) this.violations.size());
			return totals;
		}

		private static int firstAfter(List<FailoverEvent> byInvoke, long time) {
			int low = 0;
			int high = byInvoke.size();
			while (low < high) {
				int mid = (low + high) >>> 1;
				if (byInvoke.get(mid).invokeNanos() <= time) {
					low = mid + 1;
				}
				else {
					high = mid;
				}
			}
			return low;
		}

		private static long tokenOf(String leaseId, List<FailoverEvent> commits) {
			return commits.stream().filter((c) -> c.leaseId().equals(leaseId)).findFirst().map(FailoverEvent::token)
				.orElse(-1L);
		}

		private static long micros(long nanos) {
			return nanos / 1000;
		}

	}

}
