package io.starintel.lease.core;

import java.util.Map;
import java.util.Objects;

/**
 * The bound on active leases per program (the seed's "max active leases": a grant beyond it is refused with
 * {@code lease_rate_limited}, reason {@code active_lease_limit_reached}), optionally set per tenant. A tenant's value
 * bounds each of its programs: a program's leases share one backend slot, so the count and the refusal are one atomic
 * step with the grant; a tenant-wide sum across programs could not be.
 *
 * @param perProgram the most active leases of one program
 * @param perProgramByTenant per-tenant values replacing {@code perProgram} for that tenant's programs
 */
public record ActiveLeaseLimits(long perProgram, Map<String, Long> perProgramByTenant) {

	/** The seed's default: 100,000 active leases. */
	public static final long DEFAULT_PER_PROGRAM = 100_000;

	/** Checks every bound is positive. */
	public ActiveLeaseLimits {
		Objects.requireNonNull(perProgramByTenant, "perProgramByTenant");
		if (perProgram < 1) {
			throw new IllegalArgumentException("max-active-leases-per-program must be positive");
		}
		for (Map.Entry<String, Long> entry : perProgramByTenant.entrySet()) {
			if (entry.getValue() == null || entry.getValue() < 1) {
				throw new IllegalArgumentException("max-active-leases-per-program-by-tenant must be positive");
			}
		}
		perProgramByTenant = Map.copyOf(perProgramByTenant);
	}

	/** The default limits: {@value #DEFAULT_PER_PROGRAM} per program, no tenant override. */
	public static ActiveLeaseLimits defaults() {
		return new ActiveLeaseLimits(DEFAULT_PER_PROGRAM, Map.of());
	}

	/** The limit of one program. */
	public long limitFor(ProgramScope scope) {
		Long tenant = this.perProgramByTenant.get(scope.tenantId());
		return (tenant != null) ? tenant : this.perProgram;
	}

}
