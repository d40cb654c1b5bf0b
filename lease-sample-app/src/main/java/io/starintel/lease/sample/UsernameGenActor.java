package io.starintel.lease.sample;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.Identifiers;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Picks targets and processes each under a lease, logging which instance holds which target with what token.
 * Until the {@code @TargetLeased} aspect and auto-configuration land, it calls the store SPI directly on the
 * single-JVM in-memory reference store.
 */
@Component
class UsernameGenActor {

	private static final Logger logger = LoggerFactory.getLogger(UsernameGenActor.class);

	private static final List<String> TARGETS = List.of("target_01HZX3", "target_01HZX4", "target_01HZX5");

	private final LeaseStore store = new InMemoryLeaseStore();

	private final String instanceId = "instance_" + UUID.randomUUID().toString().substring(0, 8);

	UsernameGenActor() {
		logger.warn("Using the in-memory lease store: leases are exclusive within this JVM only");
	}

	@Scheduled(fixedDelay = 5000)
	void scanTargets() {
		for (String target : TARGETS) {
			LockIdentity identity = LockIdentity.of("tenant-main", "program-a", "starintel-target", target,
					"usernamegen", "default", null);
			AcquireRequest request = new AcquireRequest(identity, Identifiers.generate("request"),
					Instant.now().plusSeconds(5), new LeaseOwner("prn_usernamegen", "client_sample", "key_sample",
							this.instanceId), 30_000, 300_000, Identifiers.generate("execution"), "job_scan",
					Identifiers.generate("trace"), LeaseMetadata.empty());
			LeaseResult acquired = this.store.acquire(request);
			if (!acquired.isSuccess()) {
				logger.info("target {}: {} (another holder)", target, acquired.code().wireName());
				continue;
			}
			logger.info("target {}: held by {} with fencing token {} until {}", target, this.instanceId,
					acquired.lease().fencingToken(), acquired.lease().expiresAt());
			LeaseResult released = this.store.release(new ReleaseRequest(acquired.lease().handle(),
					Identifiers.generate("request"), Instant.now().plusSeconds(5)));
			logger.info("target {}: {}", target, released.code().wireName());
		}
	}

}
