package io.starintel.lease.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.service.LeaseService;

/**
 * A competing holder that took a job's target over ({@link TargetLeaseTester#takeOver}): it holds the target's lease
 * with a higher fencing token, as another instance of the application would. It is not renewed: it lasts the job's
 * TTL unless {@link #renew()}ed, and the tester releases it before the next test method (a competitor the test does
 * not release must not hold the target in the next test). {@link #commit()} raises the target's fenced-write
 * high-water mark to its token, as the other instance's first fenced write would.
 */
public final class Competitor {

	private final LeaseService service;

	private final HeldLease lease;

	private final Duration timeout;

	Competitor(LeaseService service, HeldLease lease, Duration timeout) {
		this.service = service;
		this.lease = lease;
		this.timeout = timeout;
	}

	/** The competitor's lease. */
	public HeldLease lease() {
		return this.lease;
	}

	/** The competitor's fencing token (higher than the job's). */
	public long fencingToken() {
		return this.lease.fencingToken();
	}

	/** Authorizes a fenced commit of the competitor (raises the high-water mark to its token). */
	public LeaseResult commit() {
		return this.service.authorizeCommit(new CommitRequest(this.lease.handle(), id("corr"), deadline()));
	}

	/** Renews the competitor's lease once. */
	public LeaseResult renew() {
		return this.service.renew(new RenewRequest(this.lease.handle(), id("request"), deadline(), null));
	}

	/** Releases the competitor's lease. */
	public LeaseResult release() {
		return this.service.release(new ReleaseRequest(this.lease.handle(), id("request"), deadline()));
	}

	private Instant deadline() {
		return Instant.now().plus(this.timeout);
	}

	static String id(String prefix) {
		return prefix + "_test_" + UUID.randomUUID().toString().replace("-", "");
	}

	@Override
	public String toString() {
		return "Competitor[" + this.lease + "]";
	}

}
