package io.starintel.lease.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

import io.starintel.lease.core.ActiveLeaseLimits;
import io.starintel.lease.core.LeaseConfigurationException;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.core.internal.ListCursors;
import io.starintel.lease.core.internal.PropertyProblems;
import io.starintel.lease.job.CancellationMode;
import io.starintel.lease.job.MisuseMode;
import io.starintel.lease.job.internal.ServiceInstanceId;

/**
 * Configuration of StarIntel target leases ({@code starintel.lease.*}), in groups: the owner of this service's
 * leases, TTL bounds, request deadlines, renewal, history, idempotency, listing, fencing, jobs, attached keys and
 * limits. Invalid values fail start-up with one message naming every property at fault; the server
 * {@link LeasePolicy} is built once, here, from the validated values. The flat keys of earlier releases
 * ({@code starintel.lease.minimum-ttl}, ...) still bind for one release (docs/jobs.md, "Renamed properties").
 */
@ConfigurationProperties("starintel.lease")
public final class LeaseProperties {

	static final String PREFIX = "starintel.lease.";

	/** Lease store: redis (default, needs a RedisConnectionFactory bean) or memory (single JVM only). */
	private final StoreType store;

	/** Tenant id of every lock identity (never taken from method arguments). */
	private final @Nullable String tenant;

	/** Program id of every lock identity (never taken from method arguments). */
	private final @Nullable String program;

	/** Owner recorded with this service's leases. */
	private final Owner owner;

	/** Bounds of a lease's TTL and maximum lifetime. */
	private final Ttl ttl;

	/** Deadlines and waits of store requests. */
	private final Request request;

	/** Background renewal of held leases. */
	private final Renewal renewal;

	/** Terminal history kept per identity. */
	private final History history;

	/** Idempotency retention. */
	private final Idempotency idempotency;

	/** Listing of active leases. */
	private final Listing list;

	/** Fencing-token issuance. */
	private final Fencing fencing;

	/** Operation classes allowed besides default. */
	private final List<String> operationClasses;

	/** Lock key prefix; only the lock-key v1 default is supported for now. */
	private final String keyPrefix;

	/** Start-up checks, cancellation and shutdown of leased jobs. */
	private final Job job;

	/** Bounds of the keys attached to a lease (put-with-lease). */
	private final Attachments attachments;

	/** Most active leases per program, optionally per tenant. */
	private final Limits limits;

	private final LeasePolicy policy;

	/**
	 * Validates every value and the timing invariants between them, reporting every problem at once (one
	 * {@link LeaseConfigurationException} naming each property), then builds the policy.
	 * @param store lease store type
	 * @param tenant tenant id
	 * @param program program id
	 * @param owner owner of this service's leases
	 * @param ttl TTL bounds
	 * @param request request deadlines and waits
	 * @param renewal renewal settings
	 * @param history history settings
	 * @param idempotency idempotency settings
	 * @param list listing settings
	 * @param fencing fencing settings
	 * @param operationClasses allowed operation classes
	 * @param keyPrefix lock key prefix
	 * @param job job settings
	 * @param attachments attached-key bounds
	 * @param limits active-lease limits
	 */
	public LeaseProperties(@DefaultValue("redis") StoreType store, @Nullable String tenant, @Nullable String program,
			@DefaultValue Owner owner, @DefaultValue Ttl ttl, @DefaultValue Request request,
			@DefaultValue Renewal renewal, @DefaultValue History history, @DefaultValue Idempotency idempotency,
			@DefaultValue Listing list, @DefaultValue Fencing fencing, @DefaultValue List<String> operationClasses,
			@DefaultValue(LockIdentity.KEY_PREFIX) String keyPrefix, @DefaultValue Job job,
			@DefaultValue Attachments attachments, @DefaultValue Limits limits) {
		this.store = store;
		this.tenant = tenant;
		this.program = program;
		this.owner = owner;
		this.ttl = ttl;
		this.request = request;
		this.renewal = renewal;
		this.history = history;
		this.idempotency = idempotency;
		this.list = list;
		this.fencing = fencing;
		this.operationClasses = List.copyOf(operationClasses);
		this.keyPrefix = keyPrefix;
		this.job = job;
		this.attachments = attachments;
		this.limits = limits;
		PropertyProblems problems = new PropertyProblems(PREFIX);
		LeasePropertiesCheck.checkIdentity(this, problems);
		LeasePropertiesCheck.checkTimings(this, problems);
		LeasePropertiesCheck.checkBounds(this, problems);
		problems.throwIfAny("Set each property listed under starintel.lease.* (application.yml, "
				+ "application.properties or the environment); see docs/jobs.md for every property and its bounds.");
		this.policy = new LeasePolicy(ttl.minimum(), ttl.maximum(), ttl.maximumLifetime(), request.maximumDeadline(),
				idempotency.retryWindow(), history.length(), history.retention(), list.maximumPageSize(),
				fencing.clockSkewBound(), attachments.maximumKeysPerLease(),
				(int) attachments.maximumValueSize().toBytes(), limits.activeLeaseLimits());
	}

	/** Lease store type. */
	public StoreType getStore() {
		return this.store;
	}

	/** Tenant id of every lock identity. */
	public @Nullable String getTenant() {
		return this.tenant;
	}

	/** Program id of every lock identity. */
	public @Nullable String getProgram() {
		return this.program;
	}

	/** Owner recorded with this service's leases. */
	public Owner getOwner() {
		return this.owner;
	}

	/** TTL bounds. */
	public Ttl getTtl() {
		return this.ttl;
	}

	/** Request deadlines and waits. */
	public Request getRequest() {
		return this.request;
	}

	/** Renewal settings. */
	public Renewal getRenewal() {
		return this.renewal;
	}

	/** History settings. */
	public History getHistory() {
		return this.history;
	}

	/** Idempotency settings. */
	public Idempotency getIdempotency() {
		return this.idempotency;
	}

	/** Listing settings. */
	public Listing getList() {
		return this.list;
	}

	/** Fencing settings. */
	public Fencing getFencing() {
		return this.fencing;
	}

	/** Operation classes allowed besides default. */
	public List<String> getOperationClasses() {
		return this.operationClasses;
	}

	/** Lock key prefix. */
	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	/** Job settings. */
	public Job getJob() {
		return this.job;
	}

	/** Attached-key bounds. */
	public Attachments getAttachments() {
		return this.attachments;
	}

	/** Active-lease limits. */
	public Limits getLimits() {
		return this.limits;
	}

	/**
	 * The server policy these properties describe (built once, from the validated values; the auto-configuration's
	 * {@code LeasePolicy} bean).
	 */
	LeasePolicy policy() {
		return this.policy;
	}

	/** The closed set of operation classes. */
	public OperationClasses operationClassSet() {
		return OperationClasses.of(this.operationClasses);
	}

	/** The list cursors these properties describe: sealed under the configured secret, or a random one. */
	ListCursors listCursors() {
		byte[] secret = listCursorSecretBytes();
		return (secret != null) ? new ListCursors(secret) : new ListCursors();
	}

	/** The configured list cursor secret, decoded, or {@code null} when none is set (a random one per store). */
	byte @Nullable [] listCursorSecretBytes() {
		String secret = this.list.cursorSecret();
		return (secret != null) ? LeasePropertiesCheck.cursorSecret(secret) : null;
	}

	/**
	 * Owner recorded with this service's leases ({@code starintel.lease.owner.*}).
	 *
	 * @param servicePrincipal Owner principal id used when no Spring Security principal is authenticated.
	 * @param clientId Owner client id recorded with each lease.
	 * @param credentialId Non-secret id of the credential this service uses (never the secret itself).
	 * @param serviceInstanceId Service instance id; generated once per JVM when not set.
	 */
	public record Owner(@Nullable String servicePrincipal, @DefaultValue("starintel-lease") String clientId,
			@DefaultValue("none") String credentialId, @Nullable String serviceInstanceId) {

		/** The configured service instance id, or the one generated once for this JVM. */
		public String effectiveServiceInstanceId() {
			return (this.serviceInstanceId != null) ? this.serviceInstanceId : ServiceInstanceId.jvm();
		}

	}

	/**
	 * Bounds of a lease's TTL and maximum lifetime ({@code starintel.lease.ttl.*}).
	 *
	 * @param minimum Exclusive lower bound of a lease TTL.
	 * @param maximum Inclusive upper bound of a lease TTL.
	 * @param maximumLifetime Upper bound of a lease's maximum lifetime.
	 */
	public record Ttl(@DefaultValue("1s") Duration minimum, @DefaultValue("10m") Duration maximum,
			@DefaultValue("24h") Duration maximumLifetime) {

	}

	/**
	 * Deadlines and waits of store requests ({@code starintel.lease.request.*}).
	 *
	 * @param timeout Deadline of each store call, measured from when it is sent.
	 * @param maximumDeadline How far ahead the store accepts a request deadline.
	 * @param maximumWait Server cap on the bounded wait an acquisition may request (waitFor, the worker API's wait_ms).
	 */
	public record Request(@DefaultValue("5s") Duration timeout, @DefaultValue("2m") Duration maximumDeadline,
			@DefaultValue("30s") Duration maximumWait) {

	}

	/**
	 * Background renewal of held leases ({@code starintel.lease.renewal.*}).
	 *
	 * @param margin Safety margin before expiry: a renewal still failing then counts as lease loss.
	 * @param threads Threads of the JVM-wide renewal scheduler, 1..16.
	 */
	public record Renewal(@DefaultValue("2s") Duration margin, @DefaultValue("2") int threads) {

	}

	/**
	 * Terminal history kept per identity ({@code starintel.lease.history.*}).
	 *
	 * @param length Terminal records kept per identity.
	 * @param retention How long terminal history is kept.
	 */
	public record History(@DefaultValue("16") int length, @DefaultValue("7d") Duration retention) {

	}

	/**
	 * Idempotency retention ({@code starintel.lease.idempotency.*}).
	 *
	 * @param retryWindow Maximum client retry window; idempotency records live for the maximum lifetime plus this.
	 */
	public record Idempotency(@DefaultValue("1h") Duration retryWindow) {

	}

	/**
	 * Listing of active leases ({@code starintel.lease.list.*}).
	 *
	 * @param maximumPageSize Server maximum list page size.
	 * @param cursorSecret Base64 secret (16, 24 or 32 bytes) sealing list cursors; set the same value on every
	 * instance serving a program so that a cursor issued by one is accepted by another (random per instance if unset).
	 */
	public record Listing(@DefaultValue("500") int maximumPageSize, @Nullable String cursorSecret) {

	}

	/**
	 * Fencing-token issuance ({@code starintel.lease.fencing.*}).
	 *
	 * @param clockSkewBound How far backend time may lag the last issued token before acquisition is refused.
	 */
	public record Fencing(@DefaultValue("30s") Duration clockSkewBound) {

	}

	/**
	 * Start-up checks, cancellation and shutdown of leased jobs ({@code starintel.lease.job.*}).
	 *
	 * @param misuse What start-up does with a @TargetLeased method the aspect can never intercept (private, static
	 * or final, or on a bean that is not proxied): fail (default) or warn.
	 * @param shutdownTimeout How long shutdown waits for cancelled jobs to end and releases their leases, at most 25s;
	 * leases still held after it are left to expire.
	 * @param cancellation How a job is cancelled on lease loss: interrupt (default) or none.
	 */
	public record Job(@DefaultValue("fail") MisuseMode misuse, @DefaultValue("5s") Duration shutdownTimeout,
			@DefaultValue("interrupt") CancellationMode cancellation) {

	}

	/**
	 * Bounds of the keys attached to a lease ({@code starintel.lease.attachments.*}, docs/attachments.md).
	 *
	 * @param maximumKeysPerLease Most keys attached to one lease; a put-with-lease beyond it is refused with
	 * lease_rate_limited (attached_key_limit_reached).
	 * @param maximumValueSize Largest attached value (UTF-8 bytes), at most 16MB; larger puts are
	 * invalid_lease_request.
	 */
	public record Attachments(@DefaultValue("10000") int maximumKeysPerLease,
			@DefaultValue("64KB") DataSize maximumValueSize) {

		static final DataSize VALUE_SIZE_CEILING = DataSize.ofMegabytes(16);

	}

	/**
	 * Most active leases per program ({@code starintel.lease.limits.*}). A grant beyond the limit is refused with
	 * {@code lease_rate_limited} (reason {@code active_lease_limit_reached}), decided in the same atomic step as the
	 * grant.
	 *
	 * @param maxActiveLeasesPerProgram Most active leases one program may hold.
	 * @param maxActiveLeasesPerProgramByTenant Per-tenant values of max-active-leases-per-program (tenant id to
	 * limit), for each program of that tenant.
	 */
	public record Limits(@DefaultValue("100000") long maxActiveLeasesPerProgram,
			@DefaultValue Map<String, Long> maxActiveLeasesPerProgramByTenant) {

		/** Copies the per-tenant map. */
		public Limits {
			maxActiveLeasesPerProgramByTenant = Map.copyOf(maxActiveLeasesPerProgramByTenant);
		}

		/** The limits these properties describe (checked by {@link LeaseProperties} first). */
		ActiveLeaseLimits activeLeaseLimits() {
			return new ActiveLeaseLimits(this.maxActiveLeasesPerProgram, this.maxActiveLeasesPerProgramByTenant);
		}

	}

	/** Lease store types. */
	public enum StoreType {

		/** Redis/Valkey through the application's RedisConnectionFactory. */
		REDIS,

		/** The in-memory reference store: exclusive within one JVM only. */
		MEMORY

	}

}
