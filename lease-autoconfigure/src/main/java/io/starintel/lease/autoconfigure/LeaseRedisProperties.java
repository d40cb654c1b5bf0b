package io.starintel.lease.autoconfigure;

import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import io.starintel.lease.core.LeaseConfigurationException;
import io.starintel.lease.core.LeaseConfigurationException.Problem;
import io.starintel.lease.store.redis.FailoverRecovery;
import io.starintel.lease.store.redis.ReplicaAcknowledgement;

/**
 * The Redis/Valkey store ({@code starintel.lease.redis.*}): how durable a change must be before it is reported, what
 * happens on a promoted, restarted or restored node, and how many connections the store opens. See
 * docs/redis-store.md, "Restore and failover".
 *
 * @param replicaAcknowledgement how many replicas must have a change before the store reports it
 * @param failoverRecovery what the store does with a program found on a promoted, restarted or restored node:
 * automatic (revoke its pre-failover leases at once, audited under the service principal) or manual (refuse with
 * lease_backend_unavailable, reason recovery_required, until an operator recovers)
 * @param connections most connections the store opens to the deployment (each call that waits for its replicas
 * holds one)
 */
@ConfigurationProperties("starintel.lease.redis")
public record LeaseRedisProperties(@DefaultValue ReplicaAcknowledgementProperties replicaAcknowledgement,
		@DefaultValue("automatic") FailoverRecovery.Mode failoverRecovery, @DefaultValue("8") int connections) {

	private static final String PREFIX = "starintel.lease.redis.";

	/** Validates the values. */
	public LeaseRedisProperties {
		if (connections < 1) {
			throw new LeaseConfigurationException(List.of(new Problem(PREFIX + "connections", "must be positive")),
					"Set starintel.lease.redis.connections to 1 or more; see docs/redis-store.md.");
		}
	}

	/**
	 * Replica acknowledgement of every change ({@code starintel.lease.redis.replica-acknowledgement.*}).
	 *
	 * @param mode all-replicas (every replica the primary reports online, at least one on Sentinel or a cluster
	 * shard that has replicas) or fixed (exactly the given number; 0 for a single server)
	 * @param replicas the minimum number of replicas (all-replicas) or the exact number (fixed)
	 * @param diskSync whether the primary must also have written the change to its append-only file (WAITAOF:
	 * Redis 7.2+ or Valkey, with appendonly yes)
	 */
	public record ReplicaAcknowledgementProperties(@DefaultValue("all-replicas") ReplicaAcknowledgement.Mode mode,
			@DefaultValue("0") int replicas, @DefaultValue("false") boolean diskSync) {

		/** Validates the values. */
		public ReplicaAcknowledgementProperties {
			if (replicas < 0) {
				throw new LeaseConfigurationException(
						List.of(new Problem(PREFIX + "replica-acknowledgement.replicas", "must not be negative")),
						"Set starintel.lease.redis.replica-acknowledgement.replicas to 0 or more.");
			}
		}

		/** The acknowledgement these properties describe. */
		public ReplicaAcknowledgement acknowledgement() {
			ReplicaAcknowledgement acknowledgement = new ReplicaAcknowledgement(this.mode, this.replicas, false);
			return this.diskSync ? acknowledgement.withDiskSync() : acknowledgement;
		}

	}

	/** The failover recovery of these properties, automatic recoveries recorded under {@code servicePrincipal}. */
	public FailoverRecovery recovery(String servicePrincipal) {
		return (this.failoverRecovery == FailoverRecovery.Mode.AUTOMATIC) ? FailoverRecovery.automatic(servicePrincipal)
				: FailoverRecovery.manual();
	}

}
