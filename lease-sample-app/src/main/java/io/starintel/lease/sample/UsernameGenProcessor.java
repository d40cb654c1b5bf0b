package io.starintel.lease.sample;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

import io.starintel.lease.job.LeaseContext;
import io.starintel.lease.job.TargetLeased;

/**
 * Processes one target under its lease: generates username candidates for it. The aspect acquires the lease
 * before the method runs, renews it while it runs, and releases it afterwards; another holder means the call is
 * skipped (logged by the aspect).
 */
@Component
class UsernameGenProcessor {

	private static final Logger logger = LoggerFactory.getLogger(UsernameGenProcessor.class);

	@TargetLeased(target = "#target.id()", actor = "usernamegen", ttl = "30s", maxLifetime = "5m")
	public void process(TargetRef target, String worker) throws InterruptedException {
		LeaseContext lease = LeaseContext.current().orElseThrow();
		logger.info("[{}] instance {} holds target {} with fencing token {} (lease {}, expires {})", worker,
				lease.lease().owner().serviceInstanceId(), target.id(), lease.fencingToken(), lease.leaseId(),
				lease.expiresAt());
		// the work: a real actor would write results through the fenced CouchDB/RabbitMQ decorators here
		TimeUnit.MILLISECONDS.sleep(200 + ThreadLocalRandom.current().nextInt(600));
		if (!lease.holdsAuthority()) {
			logger.warn("[{}] lease on {} lost during work; results are discarded", worker, target.id());
			return;
		}
		logger.info("[{}] target {} done under token {}", worker, target.id(), lease.fencingToken());
	}

}
