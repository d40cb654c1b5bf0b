package io.starintel.lease.autoconfigure;

import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import io.starintel.lease.core.ActiveLeaseLimits;
import io.starintel.lease.core.LeaseConfigurationException;
import io.starintel.lease.core.LeaseConfigurationException.Problem;

/**
 * Lease limits ({@code starintel.lease.limits.*}): the most active leases per program, optionally per tenant. A grant
 * beyond the limit is refused with {@code lease_rate_limited} (reason {@code active_lease_limit_reached}), decided
 * in the same atomic step as the grant.
 *
 * @param maxActiveLeasesPerProgram most active leases one program may hold
 * @param maxActiveLeasesPerProgramByTenant per-tenant values of max-active-leases-per-program (tenant id to limit),
 * for each program of that tenant
 */
@ConfigurationProperties("starintel.lease.limits")
public record LeaseLimitsProperties(@DefaultValue("100000") long maxActiveLeasesPerProgram,
		@DefaultValue Map<String, Long> maxActiveLeasesPerProgramByTenant) {

	/** Validates the limits. */
	public LeaseLimitsProperties {
		maxActiveLeasesPerProgramByTenant = (maxActiveLeasesPerProgramByTenant != null)
				? Map.copyOf(maxActiveLeasesPerProgramByTenant) : Map.of();
		try {
			new ActiveLeaseLimits(maxActiveLeasesPerProgram, maxActiveLeasesPerProgramByTenant);
		}
		catch (IllegalArgumentException ex) {
			String message = String.valueOf(ex.getMessage());
			String property = message.startsWith("max-active-leases-per-program-by-tenant")
					? "max-active-leases-per-program-by-tenant" : "max-active-leases-per-program";
			throw new LeaseConfigurationException(
					List.of(new Problem("starintel.lease.limits." + property, "must be positive")),
					"Set starintel.lease.limits.* to positive numbers; see docs/expiry-sweeper.md.");
		}
	}

	/** The limits these properties describe. */
	public ActiveLeaseLimits limits() {
		return new ActiveLeaseLimits(this.maxActiveLeasesPerProgram, this.maxActiveLeasesPerProgramByTenant);
	}

}
