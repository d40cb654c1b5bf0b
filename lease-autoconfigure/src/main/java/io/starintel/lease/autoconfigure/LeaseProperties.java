package io.starintel.lease.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

import io.starintel.lease.core.internal.AttachedKeys;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseConfigurationException;
import io.starintel.lease.core.LeaseConfigurationException.Problem;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.internal.ListCursors;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.job.CancellationMode;
import io.starintel.lease.job.internal.LeaseDurationFormat;
import io.starintel.lease.job.MisuseMode;
import io.starintel.lease.job.internal.ServiceInstanceId;

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
 * @param job start-up checks and shutdown of leased jobs
 * @param listCursorSecret base64 secret (16, 24 or 32 bytes) sealing list cursors; set the same value on every
 * instance serving a program so that a cursor issued by one is accepted by another (random per instance if unset)
 * @param attachments bounds of the keys attached to a lease (put-with-lease)
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
		@DefaultValue List<String> operationClasses, @DefaultValue("interrupt") CancellationMode cancellation,
		@DefaultValue Job job, @Nullable String listCursorSecret, @DefaultValue Attachments attachments) {

	private static final String PREFIX = "starintel.lease.";

	/**
	 * Validates every value and the timing invariants between them, reporting every problem at once (one
	 * {@link LeaseConfigurationException} naming each property).
	 */
	public LeaseProperties {
		List<Problem> problems = new ArrayList<>();
		identifier(problems, "tenant", tenant);
		identifier(problems, "program", program);
		identifier(problems, "service-principal", servicePrincipal);
		identifier(problems, "client-id", clientId);
		identifier(problems, "credential-id", credentialId);
		if (serviceInstanceId != null) {
			identifier(problems, "service-instance-id", serviceInstanceId);
		}
		if (tenant != null && program != null && problems.isEmpty()) {
			try {
				LockIdentity.of(tenant, program, "starintel-target", "probe", "probe", "default", "default");
			}
			catch (InvalidLeaseRequestException ex) {
				problems.add(new Problem(PREFIX + ("tenant_id".equals(ex.field()) ? "tenant" : "program"),
						"is not a canonical identity component: " + ex.getMessage()));
			}
		}
		boolean timings = positive(problems, "operation-timeout", operationTimeout)
				& positive(problems, "renewal-margin", renewalMargin) & positive(problems, "maximum-wait", maximumWait)
				& positive(problems, "maximum-ttl", maximumTtl) & positive(problems, "maximum-deadline", maximumDeadline);
		if (timings) {
			// timing invariants (in the spirit of client-go's leader-election checks)
			if (operationTimeout.compareTo(maximumDeadline) > 0) {
				problems.add(new Problem(PREFIX + "operation-timeout", "(" + LeaseDurationFormat.format(operationTimeout) + ") must not exceed "
						+ PREFIX + "maximum-deadline (" + LeaseDurationFormat.format(maximumDeadline) + ")"));
			}
			if (renewalMargin.compareTo(maximumTtl) >= 0) {
				problems.add(new Problem(PREFIX + "renewal-margin", "(" + LeaseDurationFormat.format(renewalMargin) + ") must be below " + PREFIX
						+ "maximum-ttl (" + LeaseDurationFormat.format(maximumTtl) + "): a lease must be renewable before its safety margin"));
			}
			if (maximumWait.compareTo(maximumDeadline) > 0) {
				problems.add(new Problem(PREFIX + "maximum-wait", "(" + LeaseDurationFormat.format(maximumWait) + ") must not exceed " + PREFIX
						+ "maximum-deadline (" + LeaseDurationFormat.format(maximumDeadline) + ")"));
			}
		}
		if (renewalThreads < 1 || renewalThreads > 16) {
			problems.add(new Problem(PREFIX + "renewal-threads", "(" + renewalThreads + ") must be between 1 and 16"));
		}
		if (!LockIdentity.KEY_PREFIX.equals(keyPrefix)) {
			problems.add(new Problem(PREFIX + "key-prefix", ": only the lock-key v1 prefix " + LockIdentity.KEY_PREFIX
					+ " is supported"));
		}
		try {
			OperationClasses.of(operationClasses);
		}
		catch (InvalidLeaseRequestException ex) {
			problems.add(new Problem(PREFIX + "operation-classes", ": " + ex.getMessage()));
		}
		attachments = (attachments != null) ? attachments
				: new Attachments(AttachedKeys.DEFAULT_MAXIMUM_KEYS_PER_LEASE,
						DataSize.ofBytes(AttachedKeys.DEFAULT_MAXIMUM_VALUE_BYTES));
		if (attachments.maximumKeysPerLease() < 1 || attachments.maximumKeysPerLease() > 1_000_000) {
			problems.add(new Problem(PREFIX + "attachments.maximum-keys-per-lease",
					"(" + attachments.maximumKeysPerLease() + ") must be between 1 and 1000000"));
		}
		if (attachments.maximumValueSize().toBytes() < 1
				|| attachments.maximumValueSize().toBytes() > Attachments.VALUE_SIZE_CEILING.toBytes()) {
			problems.add(new Problem(PREFIX + "attachments.maximum-value-size",
					"(" + attachments.maximumValueSize() + ") must be between 1B and 16MB"));
		}
		try {
			new LeasePolicy(minimumTtl, maximumTtl, maximumLifetime, maximumDeadline, retryWindow, historyLength,
					historyRetention, maximumPageSize, clockSkewBound);
		}
		catch (IllegalArgumentException ex) {
			String message = String.valueOf(ex.getMessage());
			int space = message.indexOf(' ');
			problems.add((space > 0) ? new Problem(PREFIX + message.substring(0, space), message.substring(space + 1))
					: new Problem(PREFIX + "minimum-ttl", message));
		}
		if (listCursorSecret != null && cursorSecret(listCursorSecret) == null) {
			problems.add(new Problem(PREFIX + "list-cursor-secret", "must be base64 of 16, 24 or 32 bytes"));
		}
		if (!problems.isEmpty()) {
			throw new LeaseConfigurationException(problems, "Set each property listed under starintel.lease.* "
					+ "(application.yml, application.properties or the environment); see docs/jobs.md for every "
					+ "property and its bounds.");
		}
		job = (job != null) ? job : new Job(MisuseMode.FAIL, Duration.ofSeconds(5));
	}

	private static void identifier(List<Problem> problems, String property, @Nullable String value) {
		if (value == null || value.isEmpty()) {
			problems.add(new Problem(PREFIX + property, "must be set"));
			return;
		}
		try {
			Identifiers.require(property, value);
		}
		catch (InvalidLeaseRequestException ex) {
			problems.add(new Problem(PREFIX + property, "must be 1.." + Identifiers.MAX_LENGTH
					+ " characters of [A-Za-z0-9._:@-]"));
		}
	}

	private static boolean positive(List<Problem> problems, String property, @Nullable Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			problems.add(new Problem(PREFIX + property, "must be a positive duration"));
			return false;
		}
		return true;
	}

	/** The server policy these properties describe. */
	public LeasePolicy policy() {
		return new LeasePolicy(this.minimumTtl, this.maximumTtl, this.maximumLifetime, this.maximumDeadline,
				this.retryWindow, this.historyLength, this.historyRetention, this.maximumPageSize,
				this.clockSkewBound, this.attachments.maximumKeysPerLease(),
				(int) this.attachments.maximumValueSize().toBytes());
	}

	/** The list cursors these properties describe: sealed under the configured secret, or a random one. */
	ListCursors listCursors() {
		byte[] secret = listCursorSecretBytes();
		return (secret != null) ? new ListCursors(secret) : new ListCursors();
	}

	/** The configured list cursor secret, decoded, or {@code null} when none is set (a random one per store). */
	byte @Nullable [] listCursorSecretBytes() {
		return (this.listCursorSecret != null) ? cursorSecret(this.listCursorSecret) : null;
	}

	private static byte @Nullable [] cursorSecret(String text) {
		try {
			byte[] secret = Base64.getDecoder().decode(text.trim());
			return (secret.length == 16 || secret.length == 24 || secret.length == 32) ? secret : null;
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	/** The closed set of operation classes. */
	public OperationClasses operationClassSet() {
		return OperationClasses.of(this.operationClasses);
	}

	/** The configured service instance id, or the one generated once for this JVM. */
	public String effectiveServiceInstanceId() {
		return (this.serviceInstanceId != null) ? this.serviceInstanceId : ServiceInstanceId.jvm();
	}

	/**
	 * Start-up checks and shutdown of leased jobs ({@code starintel.lease.job.*}).
	 *
	 * @param misuse what start-up does with a @TargetLeased method the aspect can never intercept (private, static
	 * or final, or on a bean that is not proxied): fail (default) or warn
	 * @param shutdownTimeout how long shutdown waits for cancelled jobs to end and releases their leases; leases still
	 * held after it are left to expire
	 */
	public record Job(@DefaultValue("fail") MisuseMode misuse, @DefaultValue("5s") Duration shutdownTimeout) {

		/** Checks the shutdown timeout. */
		public Job {
			if (shutdownTimeout == null || shutdownTimeout.isNegative() || shutdownTimeout.isZero()
					|| shutdownTimeout.compareTo(Duration.ofSeconds(25)) > 0) {
				throw new LeaseConfigurationException(List.of(new Problem(PREFIX + "job.shutdown-timeout",
						"(" + shutdownTimeout + ") must be positive and at most 25s (below Spring Boot's 30s "
								+ "lifecycle phase timeout)")), "Set " + PREFIX + "job.shutdown-timeout, e.g. 5s.");
			}
		}

	}

	/**
	 * Bounds of the keys attached to a lease ({@code starintel.lease.attachments.*}, docs/attachments.md).
	 *
	 * @param maximumKeysPerLease most keys attached to one lease; a put-with-lease beyond it is refused with
	 * lease_rate_limited (attached_key_limit_reached)
	 * @param maximumValueSize largest attached value (UTF-8 bytes), at most 16MB; larger puts are invalid_lease_request
	 */
	public record Attachments(@DefaultValue("10000") int maximumKeysPerLease,
			@DefaultValue("64KB") DataSize maximumValueSize) {

		static final DataSize VALUE_SIZE_CEILING = DataSize.ofMegabytes(16);

	}

	/** Lease store types. */
	public enum StoreType {

		/** Redis/Valkey through the application's RedisConnectionFactory. */
		REDIS,

		/** The in-memory reference store: exclusive within one JVM only. */
		MEMORY

	}

}
