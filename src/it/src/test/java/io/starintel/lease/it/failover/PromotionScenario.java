package io.starintel.lease.it.failover;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.MutatingRequest;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.assertj.core.api.SoftAssertions;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scenario of issue 36, on one target, through the store's public API: lease A acquired while the replica keeps
 * up; then, while it lags, A ended (an admin revoke or the holder's release) and lease B granted to another owner and
 * its commit authorized; then the primary is lost and the replica promoted (the test does that) and the clients
 * follow. What must hold afterwards ({@link #verifyAfterPromotion}):
 * <ul>
 * <li>A's holder, silent meanwhile, can neither have a commit authorized nor renew nor end A again;</li>
 * <li>every mutation that was reported successful before the promotion resolves (by request id) to the same
 * result: an acknowledged change is never lost;</li>
 * <li>no token is issued below one acknowledged before (a new acquisition's token exceeds A's and B's).</li>
 * </ul>
 * A mutation answered {@code lease_outcome_unknown} (as the store must answer while the replica does not
 * acknowledge) promises nothing and is not checked for resolution.
 */
final class PromotionScenario {

	/** A's and B's TTL: they outlive the scenario, so a resurrected lease is still active afterwards. */
	static final Duration TTL = Duration.ofSeconds(60);

	/** Deadline of each call (a store that waits for a replica answers outcome-unknown after it). */
	static final Duration DEADLINE = Duration.ofSeconds(2);

	enum End {

		REVOKE, RELEASE

	}

	private final RedisLeaseStore store;

	private final LockIdentity identity;

	private final List<Acknowledged> acknowledged = new ArrayList<>();

	private final List<String> answers = new ArrayList<>();

	private @Nullable LeaseRecord a;

	private @Nullable LeaseRecord b;

	private @Nullable End end;

	PromotionScenario(RedisLeaseStore store, String program) {
		this.store = store;
		this.identity = FailoverRequests.identity(program, "target-1");
	}

	LockIdentity identity() {
		return this.identity;
	}

	/** Lease A of owner alice, which must be acknowledged (the replica is expected to keep up). */
	LeaseRecord acquireA() {
		AcquireRequest request = FailoverRequests.acquire(this.identity, "alice", TTL, Duration.ofSeconds(10));
		LeaseResult result = this.store.acquire(request);
		note("acquire A", result);
		assertThat(result.code()).as("A is acquired while the replica keeps up").isEqualTo(ResultCode.LEASE_ACQUIRED);
		this.acknowledged.add(new Acknowledged("acquire A", request, result));
		this.a = result.lease();
		return this.a;
	}

	/**
	 * With the replica lagging: A ended ({@code end}), B acquired by bob and B's commit authorized. Records each
	 * answer; successes are the acknowledged changes checked after the promotion.
	 */
	void endAAndGrantB(End end) {
		LeaseRecord leaseA = requireA();
		this.end = end;
		if (end == End.REVOKE) {
			AdminRequest revoke = FailoverRequests.revoke(leaseA, DEADLINE);
			LeaseResult result = this.store.revoke(revoke);
			note("revoke A", result);
			acknowledgeIfSuccess("revoke A", revoke, result);
		}
		else {
			ReleaseRequest release = FailoverRequests.release(leaseA, DEADLINE);
			LeaseResult result = this.store.release(release);
			note("release A", result);
			acknowledgeIfSuccess("release A", release, result);
		}
		AcquireRequest acquireB = FailoverRequests.acquire(this.identity, "bob", TTL, DEADLINE);
		LeaseResult granted = this.store.acquire(acquireB);
		note("acquire B", granted);
		acknowledgeIfSuccess("acquire B", acquireB, granted);
		if (granted.code() == ResultCode.LEASE_ACQUIRED) {
			this.b = granted.lease();
			note("authorize B's commit", this.store.authorizeCommit(FailoverRequests.commit(this.b, DEADLINE)));
		}
	}

	/** Notes a precondition or fixture observation for the failure messages. */
	void note(String observation) {
		this.answers.add(observation);
	}

	/**
	 * Waits until the store answers again (a read that is neither backend-unavailable nor outcome-unknown): the
	 * clients follow the promoted node. Does not fail when they do not: the checks then report what they see.
	 */
	void awaitClientsFollow(Duration timeout) {
		long until = System.nanoTime() + timeout.toNanos();
		long started = System.nanoTime();
		LeaseResult last = null;
		while (System.nanoTime() < until) {
			last = this.store.inspect(FailoverRequests.inspect(this.identity, Duration.ofSeconds(1)));
			if (last.code() != ResultCode.LEASE_BACKEND_UNAVAILABLE && last.code() != ResultCode.LEASE_OUTCOME_UNKNOWN) {
				note("clients followed after " + (System.nanoTime() - started) / 1_000_000 + " ms (inspect: "
						+ describe(last) + ")");
				return;
			}
			sleep(100);
		}
		note("clients did not follow within " + timeout + " (last inspect: " + (last == null ? "-" : describe(last))
				+ ")");
	}

	/** The checks after the promotion (see the class comment), as soft assertions. */
	void verifyAfterPromotion(SoftAssertions soft) {
		LeaseRecord leaseA = requireA();
		String context = " [" + String.join("; ", this.answers) + "]";
		LeaseResult renewA = this.store.renew(FailoverRequests.renew(leaseA, DEADLINE));
		soft.assertThat(renewA.code())
			.as("A's renewal after the promotion (A was ended by a %s before it)%s", this.end, context)
			.isNotEqualTo(ResultCode.LEASE_RENEWED);
		LeaseResult commitA = this.store.authorizeCommit(FailoverRequests.commit(leaseA, DEADLINE));
		soft.assertThat(commitA.code())
			.as("A's commit authorization after the promotion (A ended by a %s, B's token %s above A's %s)%s",
					this.end, (this.b != null) ? this.b.fencingToken() : "(B not acknowledged)", leaseA.fencingToken(),
					context)
			.isNotEqualTo(ResultCode.LEASE_COMMIT_AUTHORIZED);
		LeaseResult endAgain = this.store.release(FailoverRequests.release(leaseA, DEADLINE));
		soft.assertThat(endAgain.code())
			.as("a second ending of A (its holder's release) after the promotion%s", context)
			.isNotEqualTo(ResultCode.LEASE_RELEASED);
		verifyAcknowledgedResolve(soft, context);
		verifyNextToken(soft, context);
	}

	/**
	 * The checks after a promotion that lost nothing (a graceful failover): A, granted before it, must not renew or
	 * have a commit authorized on the promoted node until the program's recovery revoked it, and A's acquisition
	 * still resolves.
	 */
	void verifyPreFailoverLeaseRefused(SoftAssertions soft) {
		LeaseRecord leaseA = requireA();
		String context = " [" + String.join("; ", this.answers) + "]";
		LeaseResult renewA = this.store.renew(FailoverRequests.renew(leaseA, DEADLINE));
		soft.assertThat(renewA.code())
			.as("renewal of lease A, granted before the failover, on the promoted node%s", context)
			.isNotEqualTo(ResultCode.LEASE_RENEWED);
		LeaseResult commitA = this.store.authorizeCommit(FailoverRequests.commit(leaseA, DEADLINE));
		soft.assertThat(commitA.code())
			.as("commit authorization of lease A, granted before the failover, on the promoted node%s", context)
			.isNotEqualTo(ResultCode.LEASE_COMMIT_AUTHORIZED);
		verifyAcknowledgedResolve(soft, context);
	}

	/** Every acknowledged mutation resolves to the same result (retrying while the backend is not answering). */
	private void verifyAcknowledgedResolve(SoftAssertions soft, String context) {
		for (Acknowledged change : this.acknowledged) {
			LeaseResult resolved = resolve(change.request());
			soft.assertThat(resolved.code())
				.as("resolve(%s), acknowledged before the promotion as %s: an acknowledged change must not be lost%s",
						change.name(), change.result().code().wireName(), context)
				.isEqualTo(change.result().code());
			if (resolved.code() == change.result().code() && change.result().lease() != null) {
				soft.assertThat(resolved.lease()).as("resolve(%s)'s lease", change.name()).isNotNull();
				if (resolved.lease() != null) {
					soft.assertThat(resolved.lease().leaseId()).as("resolve(%s)'s lease id", change.name())
						.isEqualTo(change.result().lease().leaseId());
					soft.assertThat(resolved.lease().fencingToken()).as("resolve(%s)'s token", change.name())
						.isEqualTo(change.result().lease().fencingToken());
				}
			}
		}
	}

	/**
	 * A new acquisition gets a token above every earlier one, within 30 s: the recovery may have to run first, and
	 * after a kill the restarted node must resynchronize as the promoted node's replica before a change can be
	 * acknowledged (until then the answer is {@code lease_backend_unavailable}/{@code replicas_unavailable}; 8 s was
	 * once too short in CI).
	 */
	private void verifyNextToken(SoftAssertions soft, String context) {
		long highest = this.acknowledged.stream()
			.map(Acknowledged::result)
			.filter((result) -> result.lease() != null)
			.mapToLong((result) -> result.lease().fencingToken())
			.max()
			.orElse(0);
		long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		LeaseResult last = null;
		while (System.nanoTime() < until) {
			last = this.store.acquire(FailoverRequests.acquire(this.identity, "carol", Duration.ofSeconds(5), DEADLINE));
			if (last.code() == ResultCode.LEASE_ACQUIRED) {
				soft.assertThat(last.lease().fencingToken())
					.as("token of a new acquisition after the promotion vs the highest acknowledged before%s", context)
					.isGreaterThan(highest);
				this.store.release(FailoverRequests.release(last.lease(), DEADLINE));
				return;
			}
			sleep(200);
		}
		LeaseResult inspected = this.store.inspect(FailoverRequests.inspect(this.identity, DEADLINE));
		soft.fail("no new lease could be acquired within 30 s after the promotion (last answer %s; the target is held "
				+ "by %s, A is %s, B is %s)%s", (last == null) ? "-" : describe(last), leaseOf(inspected),
				requireA().leaseId(), (this.b == null) ? "-" : this.b.leaseId(), context);
	}

	private LeaseResult resolve(MutatingRequest request) {
		long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		LeaseResult result;
		do {
			result = this.store.resolve(ResolveRequest.of(request, FailoverRequests.in(DEADLINE)));
			if (result.code() != ResultCode.LEASE_BACKEND_UNAVAILABLE && result.code() != ResultCode.LEASE_OUTCOME_UNKNOWN) {
				return result;
			}
			sleep(200);
		}
		while (System.nanoTime() < until);
		return result;
	}

	private void acknowledgeIfSuccess(String name, MutatingRequest request, LeaseResult result) {
		if (result.isSuccess()) {
			this.acknowledged.add(new Acknowledged(name, request, result));
		}
	}

	private void note(String step, LeaseResult result) {
		this.answers.add(step + ": " + describe(result));
	}

	private LeaseRecord requireA() {
		if (this.a == null) {
			throw new IllegalStateException("acquire A first");
		}
		return this.a;
	}

	private static String leaseOf(LeaseResult inspected) {
		return (inspected.lease() != null) ? inspected.lease().leaseId() : inspected.code().wireName();
	}

	static String describe(LeaseResult result) {
		StringBuilder text = new StringBuilder(result.code().wireName());
		if (result.reason() != io.starintel.lease.core.Reason.NONE) {
			text.append('/').append(result.reason().wireName());
		}
		if (result.lease() != null) {
			text.append(" token ").append(result.lease().fencingToken());
		}
		return text.toString();
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private record Acknowledged(String name, MutatingRequest request, LeaseResult result) {

	}

}
