package io.starintel.lease.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import io.starintel.lease.core.Identifiers;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.job.CancellationMode;

/**
 * Configuration of StarIntel target leases ({@code starintel.lease.*}). Invalid values fail start-up with a
 * message naming the property.
 *
 * @param store lease store: redis (default, needs a RedisConnectionFactory bean) or memory (single JVM only)
 * @param tenant tenant id of every lock identity (never taken from method arguments)
 * @param program program id of every lock identity (never taken from method arguments)
 * @param servicePrincipal owner principal id used when no Spring Security principal is authenticated
 * @param clientId owner client id recorded with each lease
 * @param credentialId non-secret id of the credential this service uses (never the secret itself)
 * @param serviceInstanceId service instance id; generated once per JVM when not set
 * @param minimumTtl exclusive lower bound of a lease TTL
 * @param maximumTtl inclusive upper bound of a lease TTL
 * @param maximumLifetime upper bound of a lease's maximum lifetime
 * @param operationTimeout deadline of each store call, measured from when it is sent
 * @param maximumDeadline how far ahead the store accepts a request deadline
 * @param renewalMargin safety margin before expiry: a renewal still failing then counts as lease loss
 * @param renewalThreads threads of the JVM-wide renewal scheduler
 * @param maximumWait server cap on the bounded wait a method may request with waitFor
 * @param keyPrefix lock key prefix; only the lock-key v1 default is supported for now
 * @param historyLength terminal records kept per identity
 * @param historyRetention how long terminal history is kept
 * @param retryWindow maximum client retry window; idempotency records live for maximum-lifetime plus this
 * @param maximumPageSize server maximum list page size
 * @param clockSkewBound how far backend time may lag the last issued token before acquisition is refused
 * @param operationClasses operation classes allowed besides default
 * @param cancellation how a job is cancelled on lease loss: interrupt (default) or none
 */
@ConfigurationProperties("starintel.lease")
public record LeaseProperties(@DefaultValue("redis") StoreType store, @Nullable String tenant,
		@Nullable String program, @Nullable String servicePrincipal, @DefaultValue("starintel-lease") String clientId,
		@DefaultValue("none") String credentialId, @Nullable String serviceInstanceId,
		@DefaultValue("1s") Duration minimumTtl, @DefaultValue("10m") Duration maximumTtl,
		@DefaultValue("24h") Duration maximumLifetime, @DefaultValue("5s") Duration operationTimeout,
		@DefaultValue("2m") Duration maximumDeadline, @DefaultValue("2s") Duration renewalMargin,
		@DefaultValue("2") int renewalThreads, @DefaultValue("30s") Duration maximumWait,
		@DefaultValue(LockIdentity.KEY_PREFIX) String keyPrefix, @DefaultValue("16") int historyLength,
		@DefaultValue("7d") Duration historyRetention, @DefaultValue("1h") Duration retryWindow,
		@DefaultValue("500") int maximumPageSize, @DefaultValue("30s") Duration clockSkewBound,
		@DefaultValue List<String> operationClasses, @DefaultValue("interrupt") CancellationMode cancellation) {

	private static final String PREFIX = "starintel.lease.";

	/** Validates every value, naming the offending property. */
	public LeaseProperties {
		identifier("tenant", tenant);
		identifier("program", program);
		identifier("service-principal", servicePrincipal);
		identifier("client-id", clientId);
		identifier("credential-id", credentialId);
		if (serviceInstanceId != null) {
			identifier("service-instance-id", serviceInstanceId);
		}
		try {
			LockIdentity.of(tenant, program, "starintel-target", "probe", "probe", "default", "default");
		}
		catch (InvalidLeaseRequestException ex) {
			throw new IllegalArgumentException(PREFIX + ("tenant_id".equals(ex.field()) ? "tenant" : "program")
					+ " is not a canonical identity component: " + ex.getMessage());
		}
		positive("operation-timeout", operationTimeout);
		positive("renewal-margin", renewalMargin);
		positive("maximum-wait", maximumWait);
		if (operationTimeout.compareTo(maximumDeadline) > 0) {
			throw new IllegalArgumentException(PREFIX + "operation-timeout must not exceed " + PREFIX + "maximum-deadline");
		}
		if (renewalThreads < 1 || renewalThreads > 16) {
			throw new IllegalArgumentException(PREFIX + "renewal-threads must be between 1 and 16");
		}
		if (!LockIdentity.KEY_PREFIX.equals(keyPrefix)) {
			throw new IllegalArgumentException(PREFIX + "key-prefix: only the lock-key v1 prefix "
					+ LockIdentity.KEY_PREFIX + " is supported");
		}
		try {
			OperationClasses.of(operationClasses);
		}
		catch (InvalidLeaseRequestException ex) {
			throw new IllegalArgumentException(PREFIX + "operation-classes: " + ex.getMessage());
		}
		try {
			new LeasePolicy(minimumTtl, maximumTtl, maximumLifetime, maximumDeadline, retryWindow, historyLength,
					historyRetention, maximumPageSize, clockSkewBound);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(PREFIX + ex.getMessage());
		}
	}

	private static void identifier(String property, @Nullable String value) {
		if (value == null || value.isEmpty()) {
			throw new IllegalArgumentException(PREFIX + property + " must be set");
		}
		try {
			Identifiers.require(property, value);
		}
		catch (InvalidLeaseRequestException ex) {
			throw new IllegalArgumentException(PREFIX + property + " must be 1.." + Identifiers.MAX_LENGTH
					+ " characters of [A-Za-z0-9._:@-]");
		}
	}

	private static void positive(String property, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(PREFIX + property + " must be a positive duration");
		}
	}

	/** The server policy these properties describe. */
	public LeasePolicy policy() {
		return new LeasePolicy(this.minimumTtl, this.maximumTtl, this.maximumLifetime, this.maximumDeadline,
				this.retryWindow, this.historyLength, this.historyRetention, this.maximumPageSize,
				this.clockSkewBound);
	}

	/** The closed set of operation classes. */
	public OperationClasses operationClassSet() {
		return OperationClasses.of(this.operationClasses);
	}

	/** The configured service instance id, or the one generated once for this JVM. */
	public String effectiveServiceInstanceId() {
		return (this.serviceInstanceId != null) ? this.serviceInstanceId : io.starintel.lease.job.ServiceInstanceIds.jvm();
	}

	/** Lease store types. */
	public enum StoreType {

		/** Redis/Valkey through the application's RedisConnectionFactory. */
		REDIS,

		/** The in-memory reference store: exclusive within one JVM only. */
		MEMORY

	}

}
