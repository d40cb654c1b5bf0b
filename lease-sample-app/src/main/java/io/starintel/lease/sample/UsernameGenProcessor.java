package io.starintel.lease.sample;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.job.TargetLeased;

/**
 * Processes one target under its lease: generates username candidates for it and commits them through the
 * {@link ResultSink} (fenced in profile {@code real}). The aspect acquires the lease before the method runs, renews
 * it while it runs, and releases it afterwards; another holder means the call is skipped (logged by the aspect).
 * When the lease is lost mid-job the aspect interrupts the work ({@code starintel.lease.job.cancellation=interrupt});
 * with {@code cancellation=none} the job goes on to commit, and fencing rejects its commits.
 */
@Component
class UsernameGenProcessor {

	private static final Logger logger = LoggerFactory.getLogger(UsernameGenProcessor.class);

	private final ResultSink results;

	private final SampleProperties properties;

	UsernameGenProcessor(ResultSink results, SampleProperties properties) {
		this.results = results;
		this.properties = properties;
	}

	@TargetLeased(target = "#target.id()", actor = "usernamegen", ttl = "30s", maxLifetime = "5m")
	public void process(TargetRef target, String worker) throws InterruptedException {
		LeaseContext lease = LeaseContext.current().orElseThrow();
		String instance = lease.lease().owner().serviceInstanceId();
		logger.info("[{}] instance {} holds target {} with fencing token {} (lease {}, expires {})", worker, instance,
				target.id(), lease.fencingToken(), lease.leaseId(), lease.expiresAt());
		this.results.started(lease, target, worker);
		Duration work = this.properties.workDuration();
		try {
			TimeUnit.MILLISECONDS
				.sleep((work != null) ? work.toMillis() : 200 + ThreadLocalRandom.current().nextInt(600));
		}
		catch (InterruptedException ex) {
			logger.warn("[{}] instance {} target {} token {}: work CANCELLED (lease lost: {}); nothing committed",
					worker, instance, target.id(), lease.fencingToken(), lease.lossReason().orElse(null));
			throw ex;
		}
		if (!lease.holdsAuthority()) {
			logger.warn("[{}] instance {} target {} token {}: lease lost during work ({}); committing anyway to show "
					+ "that fencing refuses a stale holder", worker, instance, target.id(), lease.fencingToken(),
					lease.lossReason().orElse(null));
		}
		List<String> candidates = List.of(target.displayName().replace('.', '_'),
				"the_" + target.displayName().split("\\.")[0], target.id().toLowerCase() + "_x");
		boolean accepted = this.results.commit(lease, target, worker, candidates);
		logger.info("[{}] instance {} target {} done under token {}: commit {}", worker, instance, target.id(),
				lease.fencingToken(), accepted ? "ACCEPTED" : "REJECTED");
	}

}
