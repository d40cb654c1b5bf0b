package io.starintel.lease.store.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

import io.starintel.lease.audit.internal.AdminDecision;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.ActivePrograms;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.internal.CorruptRecordException;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.internal.ListCursors;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.StoredRecord;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.store.LeaseAlert;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.redis.internal.LeaseLibrary;
import io.starintel.lease.store.redis.internal.ScriptExecutor;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Redis/Valkey lease store: every operation is exactly one function call (FCALL into the {@link LeaseLibrary},
 * storage encoding v2; data written by the v1 encoding is read and upgraded on first touch) that decides at backend time
 * ({@code TIME}) on keys sharing one hash tag per (tenant, program), so it runs unchanged on Redis Cluster.
 *
 * <p>Contract: records, the durable fencing counter, idempotency records, bounded history, indexes and the expiry
 * queue change in the same script; deadlines are checked inside the script; an active-shaped record past
 * {@code expires_at} is expired before any decision; corrupt records fail closed, are quarantined and raise a
 * {@link LeaseAlert}. A command not submitted is {@code lease_backend_unavailable}; one submitted without a reply
 * before the request deadline is {@code lease_outcome_unknown} for mutations and commit authorizations (resolve it
 * with {@link #resolve}). No Redis exception crosses this class.
 *
 * <p>The parts, all package-private: the argument builders {@link LeaseArguments}, {@link AttachArguments} and
 * {@link ProgramArguments}; {@link LeaseCalls} (one call, its typed result and alerts); {@link RenewBatches},
 * {@link AttachedKeyCalls}, {@link LeaseListing} and {@link ProgramMaintenance} (sweep, recovery).
 */
public final class RedisLeaseStore implements LeaseStore, AutoCloseable {

	/** How long a record physically outlives its {@code expires_at} (reclamation only, never authority). */
	static final Duration PHYSICAL_GRACE = Duration.ofMinutes(5);

	/** Approximate bound of each program's audit stream. */
	static final int AUDIT_STREAM_LENGTH = 100_000;

	private final LeasePolicy policy;

	private final LeaseArguments arguments;

	private final LeaseCalls calls;

	private final RenewBatches renewBatches;

	private final AttachedKeyCalls attachedKeys;

	private final LeaseListing listing;

	private final ProgramMaintenance maintenance;

	private final ScriptExecutor executor;

	private final FenceCalls fenceCalls;

	private final ProgramRegistry programs;

	/**
	 * A store on a connection factory with the defaults of {@link #builder}: every change acknowledged by every
	 * replica the primary reports, automatic failover recovery, list cursors under a random per-store secret.
	 * @param connectionFactory Spring Data Redis connection factory (Lettuce: standalone, Sentinel or cluster)
	 * @param policy server policy (TTL bounds, lifetime, deadlines, retention, page size, clock-skew bound)
	 * @param alerts receives corrupt-record and counter alerts (in addition to the log)
	 */
	public RedisLeaseStore(RedisConnectionFactory connectionFactory, LeasePolicy policy, LeaseAlerts alerts) {
		this(builder(connectionFactory).policy(policy).alerts(alerts));
	}

	/**
	 * A store whose list cursors are sealed under {@code listCursorSecret} (16, 24 or 32 bytes; pass the same secret
	 * to every instance serving a program, so that a cursor from one instance continues on another).
	 * @throws IllegalArgumentException for a secret of another length
	 */
	public RedisLeaseStore(RedisConnectionFactory connectionFactory, LeasePolicy policy, LeaseAlerts alerts,
			byte[] listCursorSecret) {
		this(builder(connectionFactory).policy(policy).alerts(alerts).listCursorSecret(listCursorSecret));
	}

	private RedisLeaseStore(Builder builder) {
		this.executor = new ScriptExecutor(builder.connectionFactory, builder.acknowledgement, builder.connections);
		this.policy = builder.policy;
		this.calls = new LeaseCalls(this.executor, builder.alerts);
		CallSettings settings = CallSettings.of(ArgumentBytes.policy(this.policy, PHYSICAL_GRACE),
				builder.failoverRecovery, AUDIT_STREAM_LENGTH);
		this.arguments = new LeaseArguments(settings, this.policy.activeLeaseLimits());
		this.renewBatches = new RenewBatches(this.policy, this.arguments, this.calls);
		this.attachedKeys = new AttachedKeyCalls(this.policy, new AttachArguments(settings,
				this.policy.maximumAttachedKeys()), this.calls);
		ProgramArguments programArguments = new ProgramArguments(settings);
		this.listing = new LeaseListing(this.policy, programArguments, this.calls,
				(builder.listCursorSecret != null) ? new ListCursors(builder.listCursorSecret) : new ListCursors());
		this.maintenance = new ProgramMaintenance(programArguments, this.calls,
				new ProgramRecovery(this.executor, programArguments));
		this.fenceCalls = new FenceCalls(this.executor, settings);
		this.programs = new ProgramRegistry(this.executor, this.policy.maximumLifetime());
		if (builder.warmUp) {
			this.executor.warmUp();
		}
	}

	/** A builder of a store on the factory's deployment. */
	public static Builder builder(RedisConnectionFactory connectionFactory) {
		return new Builder(connectionFactory);
	}

	/** Builds a {@link RedisLeaseStore}; every setting has a default. */
	public static final class Builder {

		private final RedisConnectionFactory connectionFactory;

		private LeasePolicy policy = LeasePolicy.defaults();

		private LeaseAlerts alerts = LeaseAlerts.LOG;

		private byte @Nullable [] listCursorSecret;

		private ReplicaAcknowledgement acknowledgement = ReplicaAcknowledgement.allReplicas();

		private FailoverRecovery failoverRecovery = FailoverRecovery.automatic("starintel-lease");

		private int connections = ScriptExecutor.DEFAULT_CONNECTIONS;

		private boolean warmUp = true;

		private Builder(RedisConnectionFactory connectionFactory) {
			this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
		}

		/** Server policy (TTL bounds, lifetime, deadlines, retention, page size, clock-skew bound). */
		public Builder policy(LeasePolicy policy) {
			this.policy = Objects.requireNonNull(policy, "policy");
			return this;
		}

		/** Receives corrupt-record and counter alerts (in addition to the log). */
		public Builder alerts(LeaseAlerts alerts) {
			this.alerts = Objects.requireNonNull(alerts, "alerts");
			return this;
		}

		/**
		 * The secret (16, 24 or 32 bytes) sealing list cursors; the same on every instance serving a program.
		 * @throws IllegalArgumentException for a secret of another length
		 */
		public Builder listCursorSecret(byte[] secret) {
			new ListCursors(secret); // validates the length now
			this.listCursorSecret = secret.clone();
			return this;
		}

		/** How many replicas must acknowledge a change before it is reported (default: every one reported). */
		public Builder replicaAcknowledgement(ReplicaAcknowledgement acknowledgement) {
			this.acknowledgement = Objects.requireNonNull(acknowledgement, "acknowledgement");
			return this;
		}

		/** What happens to a program found on a promoted, restarted or restored node (default: automatic). */
		public Builder failoverRecovery(FailoverRecovery failoverRecovery) {
			this.failoverRecovery = Objects.requireNonNull(failoverRecovery, "failoverRecovery");
			return this;
		}

		/** The most connections the store opens to the deployment (per client; default 8). */
		public Builder connections(int connections) {
			if (connections < 1) {
				throw new IllegalArgumentException("connections must be positive");
			}
			this.connections = connections;
			return this;
		}

		/** Whether the library is loaded on every primary in the background at once (default true). */
		public Builder warmUp(boolean warmUp) {
			this.warmUp = warmUp;
			return this;
		}

		public RedisLeaseStore build() {
			return new RedisLeaseStore(this);
		}

	}

	@Override
	public LeaseResult acquire(AcquireRequest request) {
		try {
			this.policy.check(request, Instant.now());
		}
		catch (InvalidLeaseRequestException ex) {
			return LeaseResult.invalid(ex);
		}
		IdentityKeys target = IdentityKeys.of(request.identity());
		byte[] key = LeaseArguments.acquireKey(target, request);
		String leaseId = target.newLeaseId(key);
		return reported(this.calls.lease(this.arguments.acquire(target, request, key, leaseId), "acquire", true,
				target, request.deadlineAt(), request, leaseId));
	}

	/**
	 * Contract: every call has a finite deadline, and one further ahead than the policy's maximum is
	 * {@code invalid_lease_request}. The functions that change a lease check it at backend time; every call is
	 * checked here too, before anything is sent, so that no call (a read, a commit authorization) waits on a silent
	 * server longer than the maximum deadline.
	 */
	private boolean beyondMaximumDeadline(Instant deadlineAt) {
		return this.policy.isBeyondMaximumDeadline(deadlineAt, Instant.now());
	}

	private static final InvalidLeaseRequestException TOO_FAR_AHEAD = new InvalidLeaseRequestException("deadline_at",
			"further ahead than the policy allows");

	/** Reports the program of a granted or renewed lease to the registry the expiry sweeper reads. */
	private LeaseResult reported(LeaseResult result) {
		if ((result.code() == ResultCode.LEASE_ACQUIRED || result.code() == ResultCode.LEASE_RENEWED)
				&& result.lease() != null) {
			this.programs.touch(result.lease().identity().scope());
		}
		return result;
	}

	@Override
	public LeaseResult renew(RenewRequest request) {
		LeaseResult invalid = RenewBatches.invalidTtl(this.policy, request);
		if (invalid != null) {
			return invalid;
		}
		IdentityKeys target = IdentityKeys.of(request.handle().identity());
		return reported(this.calls.lease(this.arguments.renew(target, request), "renew", true, target,
				request.deadlineAt(), null, null));
	}

	/**
	 * Renews the leases of each program in one function call per program (one slot), at most
	 * {@link #MAX_RENEW_BATCH} per call, each lease's deadline honoured on its own ({@link RenewBatches}).
	 */
	@Override
	public List<LeaseResult> renewAll(List<RenewRequest> requests) {
		List<LeaseResult> results = this.renewBatches.renewAll(requests);
		results.forEach(this::reported);
		return results;
	}

	@Override
	public LeaseResult release(ReleaseRequest request) {
		if (beyondMaximumDeadline(request.deadlineAt())) {
			return LeaseResult.invalid(TOO_FAR_AHEAD);
		}
		IdentityKeys target = IdentityKeys.of(request.handle().identity());
		return this.calls.lease(this.arguments.release(target, request), "release", true, target,
				request.deadlineAt(), null, null);
	}

	@Override
	public LeaseResult forceRelease(AdminRequest request) {
		return administer(request);
	}

	@Override
	public LeaseResult revoke(AdminRequest request) {
		return administer(request);
	}

	private LeaseResult administer(AdminRequest request) {
		if (beyondMaximumDeadline(request.deadlineAt())) {
			return LeaseResult.invalid(TOO_FAR_AHEAD);
		}
		IdentityKeys target = IdentityKeys.of(request.identity());
		// the audit layer's decision (AuditingLeaseStore), else one of this call: the script's entry carries its ids
		AdminDecision decision = AdminDecision.currentOrBegin(Instant.now());
		return this.calls.lease(this.arguments.administer(target, request, decision),
				request.operation().wireName(), true, target, request.deadlineAt(), null, null);
	}

	@Override
	public LeaseResult authorizeCommit(CommitRequest request) {
		if (beyondMaximumDeadline(request.deadlineAt())) {
			return LeaseResult.invalid(TOO_FAR_AHEAD);
		}
		IdentityKeys target = IdentityKeys.of(request.handle().identity());
		return this.calls.lease(this.arguments.authorize(target, request), "authorize_commit", true, target,
				request.deadlineAt(), null, null);
	}

	@Override
	public LeaseResult inspect(InspectRequest request) {
		if (beyondMaximumDeadline(request.deadlineAt())) {
			return LeaseResult.invalid(TOO_FAR_AHEAD);
		}
		if (request.identity() != null) {
			if (!request.identity().scope().equals(request.scope())) {
				return LeaseResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.NONE, null);
			}
			IdentityKeys target = IdentityKeys.of(request.identity());
			return this.calls.lease(this.arguments.inspect(target, request.deadlineAt()), "inspect", false, target,
					request.deadlineAt(), null, null);
		}
		LeaseResult result = this.calls.lease(
				this.arguments.inspectByLeaseId(request.scope(), request.leaseId(), request.deadlineAt()), "inspect",
				false, null, request.deadlineAt(), null, null);
		if (result.lease() != null && !result.lease().identity().scope().equals(request.scope())) {
			return LeaseResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.NONE, result.decidedAt());
		}
		return result;
	}

	@Override
	public LeasePage list(ListRequest request) {
		if (beyondMaximumDeadline(request.deadlineAt())) {
			return LeasePage.failure(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE, null);
		}
		return this.listing.list(request);
	}

	@Override
	public AttachmentResult putAttached(AttachPutRequest request) {
		return this.attachedKeys.put(request);
	}

	@Override
	public AttachmentResult deleteAttached(AttachDeleteRequest request) {
		if (beyondMaximumDeadline(request.deadlineAt())) {
			return AttachmentResult.invalid(TOO_FAR_AHEAD);
		}
		return this.attachedKeys.delete(request);
	}

	@Override
	public AttachmentResult getAttached(AttachGetRequest request) {
		if (beyondMaximumDeadline(request.deadlineAt())) {
			return AttachmentResult.invalid(TOO_FAR_AHEAD);
		}
		return this.attachedKeys.get(request);
	}

	@Override
	public AttachmentResult listAttached(AttachListRequest request) {
		if (beyondMaximumDeadline(request.deadlineAt())) {
			return AttachmentResult.invalid(TOO_FAR_AHEAD);
		}
		return this.attachedKeys.list(request);
	}

	/** The administer script appends each force-release/revoke decision to {@code P{T}:audit} atomically. */
	@Override
	public boolean writesAdminAuditAtomically() {
		return true;
	}

	@Override
	public LeaseResult resolve(ResolveRequest request) {
		if (beyondMaximumDeadline(request.deadlineAt())) {
			return LeaseResult.invalid(TOO_FAR_AHEAD);
		}
		IdentityKeys target = IdentityKeys.of(request.identity());
		return this.calls.lease(this.arguments.resolve(target, request.operation(), request.principalId(),
				request.requestId(), request.deadlineAt()), "resolve", false, target, request.deadlineAt(), null,
				null);
	}

	/** One call of the {@code sweep} function ({@code sweep.lua}); see {@link ProgramMaintenance#sweepExpired}. */
	@Override
	public SweepResult sweepExpired(SweepRequest request) {
		return this.maintenance.sweepExpired(request);
	}

	/**
	 * Restore/failover recovery of one program: revokes every active lease (moved to history as revoked, with an
	 * audit event each) so that every holder must acquire again with a new, higher token. Tokens need no repair:
	 * they are floored at backend time x 1024, so tokens issued after recovery exceed every token issued before
	 * the restored state as long as backend time did not go backwards (the clock-skew check refuses otherwise).
	 * @return the number of leases revoked, or -1 when the backend could not complete the recovery (retry it)
	 * @throws InvalidLeaseRequestException for a missing administrator or reason
	 */
	public long recoverProgram(ProgramScope scope, String adminPrincipalId, String adminCredentialId, String reason,
			Instant deadlineAt) {
		return this.maintenance.recoverProgram(scope, adminPrincipalId, adminCredentialId, reason, deadlineAt);
	}

	/**
	 * Failover recovery of every program whose state was written under another node than the one serving it now (a
	 * promoted replica, a restarted or restored server): the programs are found by scanning each primary (or only
	 * {@code node}, {@code host:port} of a cluster primary) for their epoch keys; each such program's active leases are
	 * revoked (one audit event each, in the program's audit stream) and the node's identity is stamped on it. With
	 * {@link FailoverRecovery.Mode#AUTOMATIC} the store does this per program on first contact anyway; this entry
	 * recovers programs nobody calls and is the operator's tool with {@link FailoverRecovery.Mode#MANUAL}.
	 * @param node one cluster primary ({@code host:port}), or null for every primary
	 * @throws InvalidLeaseRequestException for a missing administrator or an invalid reason
	 */
	public RecoveryReport recoverPromotedPrograms(@Nullable String node, String adminPrincipalId,
			String adminCredentialId, String reason, Instant deadlineAt) {
		return this.maintenance.recoverPromoted(node, adminPrincipalId, adminCredentialId, reason, deadlineAt);
	}

	/**
	 * The programs whose leases may be active or due: those in which a process of this library granted or renewed a
	 * lease within the policy's maximum lifetime (plus a margin), most recently active first (sweep.lua's registry).
	 */
	@Override
	public ActivePrograms activePrograms(int limit, Instant deadlineAt) {
		return this.programs.list(limit, deadlineAt);
	}

	/** The fence functions on this store's deployment, with its connections and settings. */
	public FenceCalls fenceCalls() {
		return this.fenceCalls;
	}

	/** Closes the store's own connections (the connection factory stays the application's). */
	@Override
	public void close() {
		this.programs.close();
		this.executor.close();
	}

}
