package io.starintel.lease.autoconfigure.health;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;

/**
 * Health of the lease backend: inspects a probe identity of the configured program (a read; nothing is acquired) on
 * the undecorated store, so health polls write no audit events (they are not lease requests of any caller).
 * UP when the store answers {@code lease_inspected} or {@code lease_not_found}; DOWN with the typed code otherwise.
 * Details never include a lock key, backend address or error text.
 */
final class LeaseHealthIndicator implements HealthIndicator {

	private final LeaseService service;

	private final LockIdentity probe;

	/** An indicator probing the given program. */
	LeaseHealthIndicator(LeaseService service, String tenant, String program) {
		this.service = service;
		this.probe = LockIdentity.of(tenant, program, "starintel-health", "probe", "health-probe", "default",
				"default");
	}

	@Override
	public Health health() {
		LeaseResult result = this.service.probe(this.probe);
		Health.Builder builder = (result.code() == ResultCode.LEASE_INSPECTED
				|| result.code() == ResultCode.LEASE_NOT_FOUND) ? Health.up() : Health.down();
		return builder.withDetail("code", result.code().wireName()).build();
	}

}
