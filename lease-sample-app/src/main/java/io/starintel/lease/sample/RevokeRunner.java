package io.starintel.lease.sample;

import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

import io.starintel.lease.autoconfigure.LeaseProperties;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.service.LeaseService;

/**
 * Profile {@code revoke}: a one-shot operator tool for the stale-instance walkthrough. It finds the active lease
 * of {@code sample.revoke-target} in this program, revokes exactly that lease (lease id and token compared at
 * backend time) through the lease service (so the revoke is audited), logs the outcome and exits. A real deployment would use the admin endpoint instead.
 */
@Component
@Profile("revoke")
class RevokeRunner implements ApplicationRunner {

	private static final Logger logger = LoggerFactory.getLogger(RevokeRunner.class);

	private final LeaseService service;

	private final LeaseProperties lease;

	private final SampleProperties properties;

	private final ConfigurableApplicationContext context;

	RevokeRunner(LeaseService service, LeaseProperties lease, SampleProperties properties,
			ConfigurableApplicationContext context) {
		this.service = service;
		this.lease = lease;
		this.properties = properties;
		this.context = context;
	}

	@Override
	public void run(ApplicationArguments args) {
		String target = this.properties.revokeTarget();
		if (target == null) {
			logger.warn("revoke: set sample.revoke-target");
		}
		else {
			revoke(target);
		}
		SpringApplication.exit(this.context, () -> 0);
	}

	private void revoke(String target) {
		ProgramScope scope = ProgramScope.of(Objects.requireNonNull(this.lease.getTenant(), "starintel.lease.tenant"),
				Objects.requireNonNull(this.lease.getProgram(), "starintel.lease.program"));
		LeasePage page = this.service.list(new ListRequest(new ListFilter.ByTarget(scope, "starintel-target", target),
				null, 10, this.service.newId(), this.service.deadline()));
		if (page.leases().isEmpty()) {
			logger.warn("revoke: no active lease on target {} ({})", target, page.code());
			return;
		}
		for (LeaseRecord record : page.leases()) {
			LeaseResult result = this.service.revoke(new AdminRequest(Operation.REVOKE, record.identity(),
					this.service.newId(), this.service.deadline(), record.leaseId(), record.fencingToken(), "prn_sample_admin",
					"key_sample_admin", "sample walkthrough: stale instance"));
			logger.warn("revoke: target {} lease {} token {} held by instance {}: {}", target, record.leaseId(),
					record.fencingToken(), record.owner().serviceInstanceId(), result.code());
		}
	}

}
