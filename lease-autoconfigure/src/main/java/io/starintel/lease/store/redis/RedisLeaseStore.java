package io.starintel.lease.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.CorruptRecordException;
import io.starintel.lease.core.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.LeaseAlert;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.LeaseStore;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Redis/Valkey lease store: every operation is exactly one Lua script (EVALSHA) that decides at backend time
 * ({@code TIME}) on keys sharing one hash tag per (tenant, program), so it runs unchanged on Redis Cluster.
 *
 * <p>Contract: records, the durable fencing counter, idempotency records, bounded history, indexes and the expiry
 * queue change in the same script; deadlines are checked inside the script; an active-shaped record past
 * {@code expires_at} is expired before any decision; corrupt records fail closed, are quarantined and raise a
 * {@link LeaseAlert}. A command not submitted is {@code lease_backend_unavailable}; one submitted without a reply
 * before the request deadline is {@code lease_outcome_unknown} for mutations and commit authorizations (resolve it
 * with {@link #resolve}). No Redis exception crosses this class.
 */
public final class RedisLeaseStore implements LeaseStore {

	/** How long a record physically outlives its {@code expires_at} (reclamation only, never authority). */
	static final Duration PHYSICAL_GRACE = Duration.ofMinutes(5);

	/** Approximate bound of each program's audit stream. */
	static final int AUDIT_STREAM_LENGTH = 100_000;

	private final ScriptExecutor executor;

	private final LeasePolicy policy;

	private final LeaseAlerts alerts;

	/**
	 * A store on a Lettuce-backed connection factory (standalone, sentinel or cluster).
	 * @param connectionFactory Spring Data Redis connection factory; must be a {@code LettuceConnectionFactory}
	 * @param policy server policy (TTL bounds, lifetime, deadlines, retention, page size, clock-skew bound)
	 * @param alerts receives corrupt-record and counter alerts (in addition to the log)
	 */
	public RedisLeaseStore(RedisConnectionFactory connectionFactory, LeasePolicy policy, LeaseAlerts alerts) {
		this.executor = new ScriptExecutor(Objects.requireNonNull(connectionFactory, "connectionFactory"));
		this.policy = Objects.requireNonNull(policy, "policy");
		this.alerts = Objects.requireNonNull(alerts, "alerts");
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
		List<String> args = target.args(request.deadlineAt(), this.policy);
		args.addAll(List.of(request.digest(), millis(this.policy.idempotencyRetention()),
				millis(this.policy.maximumDeadline()), millis(this.policy.clockSkewBound()),
				Identifiers.generate("lease"), Long.toString(request.ttlMs()), Long.toString(request.maximumLifetimeMs()),
				millis(PHYSICAL_GRACE), request.owner().principalId(), request.owner().clientId(),
				request.owner().credentialId(), request.owner().serviceInstanceId(), request.executionId(),
				request.jobId(), request.traceId(), request.requestId(), request.metadata().json()));
		return single(LeaseScript.ACQUIRE, "acquire", true, target, request.deadlineAt(), List.of(target.lease(),
				target.fence(), target.idempotency(request.operation(), request.principalId(), request.requestId())),
				args);
	}

	@Override
	public LeaseResult renew(RenewRequest request) {
		return holderOperation(LeaseScript.RENEW, "renew", request.handle(), request.requestId(), request.digest(),
				request.deadlineAt(), Operation.RENEW, List.of(millis(PHYSICAL_GRACE)));
	}

	@Override
	public LeaseResult release(ReleaseRequest request) {
		return holderOperation(LeaseScript.RELEASE, "release", request.handle(), request.requestId(),
				request.digest(), request.deadlineAt(), Operation.RELEASE, List.of());
	}

	private LeaseResult holderOperation(LeaseScript script, String name, LeaseHandle handle, String requestId,
			String digest, Instant deadlineAt, Operation operation, List<String> extra) {
		IdentityKeys target = IdentityKeys.of(handle.identity());
		List<String> args = target.args(deadlineAt, this.policy);
		args.addAll(List.of(digest, millis(this.policy.idempotencyRetention()), millis(this.policy.maximumDeadline())));
		args.addAll(handleArgs(handle));
		args.addAll(extra);
		return single(script, name, true, target, deadlineAt,
				List.of(target.lease(), target.idempotency(operation, handle.ownerPrincipalId(), requestId)), args);
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
		IdentityKeys target = IdentityKeys.of(request.identity());
		List<String> args = target.args(request.deadlineAt(), this.policy);
		args.addAll(List.of(request.digest(), millis(this.policy.idempotencyRetention()),
				millis(this.policy.maximumDeadline()), request.operation().wireName(), request.expectedLeaseId(),
				Long.toString(request.expectedFencingToken()), request.adminPrincipalId(), request.adminCredentialId(),
				request.reason(), request.requestId(), Integer.toString(AUDIT_STREAM_LENGTH)));
		return single(LeaseScript.ADMINISTER, request.operation().wireName(), true, target, request.deadlineAt(),
				List.of(target.lease(), target.idempotency(request.operation(), request.principalId(),
						request.requestId()), target.keys().audit()),
				args);
	}

	@Override
	public LeaseResult authorizeCommit(CommitRequest request) {
		LeaseHandle handle = request.handle();
		IdentityKeys target = IdentityKeys.of(handle.identity());
		List<String> args = target.args(request.deadlineAt(), this.policy);
		args.addAll(handleArgs(handle));
		return single(LeaseScript.AUTHORIZE, "authorize_commit", true, target, request.deadlineAt(),
				List.of(target.lease(), target.fence()), args);
	}

	@Override
	public LeaseResult inspect(InspectRequest request) {
		if (request.identity() != null) {
			if (!request.identity().scope().equals(request.scope())) {
				return LeaseResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.NONE, null);
			}
			IdentityKeys target = IdentityKeys.of(request.identity());
			return single(LeaseScript.INSPECT, "inspect", false, target, request.deadlineAt(), List.of(target.lease()),
					target.args(request.deadlineAt(), this.policy));
		}
		ProgramScope scope = request.scope();
		RedisKeys keys = new RedisKeys(scope);
		List<String> args = List.of(epochMillis(request.deadlineAt()), keys.base(), request.leaseId(),
				scope.tenantId(), scope.programId(), Integer.toString(this.policy.historyLength()),
				millis(this.policy.historyRetention()));
		return single(LeaseScript.INSPECT_BY_LEASE_ID, "inspect", false, null, request.deadlineAt(),
				List.of(keys.base() + "lid:" + request.leaseId()), args);
	}

	@Override
	public LeasePage list(ListRequest request) {
		ListFilter filter = request.filter();
		String after;
		try {
			after = (request.cursor() != null) ? ListCursor.decode(request.cursor()) : "";
		}
		catch (InvalidLeaseRequestException ex) {
			return LeasePage.failure(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE, null);
		}
		ProgramScope scope = filter.scope();
		RedisKeys keys = new RedisKeys(scope);
		int pageSize = this.policy.pageSize(request.pageSize());
		List<String> args = new ArrayList<>(List.of(epochMillis(request.deadlineAt()), keys.base(), after,
				Integer.toString(pageSize), Integer.toString(Math.max(256, pageSize * 4)), scope.tenantId(),
				scope.programId()));
		String index = keys.programIndex();
		if (filter instanceof ListFilter.ByOwner owner) {
			index = keys.ownerIndex(owner.ownerPrincipalId());
			args.addAll(List.of("owner", owner.ownerPrincipalId(), ""));
		}
		else if (filter instanceof ListFilter.ByTarget target) {
			index = keys.targetIndex(target.targetNamespace(), target.targetId());
			args.addAll(List.of("target", target.targetNamespace(), target.targetId()));
		}
		else {
			args.addAll(List.of("program", "", ""));
		}
		args.addAll(List.of(Integer.toString(this.policy.historyLength()), millis(this.policy.historyRetention())));
		try {
			List<Object> reply = this.executor.run(LeaseScript.LIST, request.deadlineAt(), List.of(index), args);
			return page(reply, scope);
		}
		catch (ScriptFailure failure) {
			LeaseResult result = failed(failure, false);
			return LeasePage.failure(result.code(), result.reason(), null);
		}
	}

	private LeasePage page(List<Object> reply, ProgramScope scope) {
		ResultCode code = ResultCode.fromWireName(ReplyReader.text(reply, 0));
		Instant decidedAt = Instant.ofEpochMilli(Long.parseLong(ReplyReader.text(reply, 2)));
		if (code != ResultCode.LEASE_LISTED) {
			return LeasePage.failure(code, Reason.NONE, decidedAt);
		}
		String cursor = ReplyReader.text(reply, 3);
		long corrupt = Long.parseLong(ReplyReader.text(reply, 4));
		List<LeaseRecord> leases = new ArrayList<>();
		for (String json : ReplyReader.strings(reply, 5)) {
			try {
				leases.add(ReplyReader.recordFromJson(json));
			}
			catch (CorruptRecordException ex) {
				corrupt++;
			}
		}
		if (corrupt > 0) {
			raise(new LeaseAlert(Reason.CORRUPT_RECORD, scope, "list", "index"));
		}
		return new LeasePage(ResultCode.LEASE_LISTED, Reason.NONE, leases,
				cursor.isEmpty() ? null : ListCursor.encode(cursor), decidedAt);
	}

	/** The administer script appends each force-release/revoke decision to {@code P{T}:audit} atomically. */
	@Override
	public boolean writesAdminAuditAtomically() {
		return true;
	}

	@Override
	public LeaseResult resolve(ResolveRequest request) {
		IdentityKeys target = IdentityKeys.of(request.identity());
		return single(LeaseScript.RESOLVE, "resolve", false, target, request.deadlineAt(),
				List.of(target.lease(), target.idempotency(request.operation(), request.principalId(),
						request.requestId())),
				target.args(request.deadlineAt(), this.policy));
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
		Identifiers.require("admin_principal_id", adminPrincipalId);
		Identifiers.require("admin_credential_id", adminCredentialId);
		if (reason == null || reason.isBlank() || reason.length() > AdminRequest.MAX_REASON_LENGTH) {
			throw new InvalidLeaseRequestException("reason", "must be 1.." + AdminRequest.MAX_REASON_LENGTH
					+ " characters");
		}
		RedisKeys keys = new RedisKeys(scope);
		String requestId = Identifiers.generate("request");
		long total = 0;
		while (true) {
			List<Object> reply;
			try {
				reply = this.executor.run(LeaseScript.RECOVER, deadlineAt, List.of(keys.programIndex(), keys.audit()),
						List.of(epochMillis(deadlineAt), keys.base(), "500", adminPrincipalId, adminCredentialId,
								reason, requestId, Integer.toString(this.policy.historyLength()),
								millis(this.policy.historyRetention()), Integer.toString(AUDIT_STREAM_LENGTH)));
			}
			catch (ScriptFailure failure) {
				return -1;
			}
			if (!"lease_revoked".equals(ReplyReader.text(reply, 0))) {
				return -1;
			}
			total += Long.parseLong(ReplyReader.text(reply, 2));
			if (Long.parseLong(ReplyReader.text(reply, 3)) == 0) {
				return total;
			}
		}
	}

	private LeaseResult single(LeaseScript script, String operation, boolean mutating, IdentityKeys target,
			Instant deadlineAt, List<String> keys, List<String> args) {
		LockIdentity identity = (target != null) ? target.identity() : null;
		String reference = (target != null) ? target.digest() : "lease-id";
		List<Object> reply;
		try {
			reply = this.executor.run(script, deadlineAt, keys, args);
		}
		catch (ScriptFailure failure) {
			return failed(failure, mutating);
		}
		try {
			LeaseResult result = ReplyReader.single(reply, identity);
			if (result.reason() == Reason.CORRUPT_RECORD || result.reason() == Reason.FENCING_COUNTER_EXHAUSTED
					|| result.reason() == Reason.BACKEND_CLOCK_BEHIND) {
				alert(result.reason(), identity, reference, operation);
			}
			return result;
		}
		catch (CorruptRecordException | IllegalArgumentException | IndexOutOfBoundsException ex) {
			alert(Reason.CORRUPT_RECORD, identity, reference, operation);
			return LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.CORRUPT_RECORD, null);
		}
	}

	private void alert(Reason reason, LockIdentity identity, String reference, String operation) {
		ProgramScope scope = (identity != null) ? identity.scope() : ProgramScope.of("unknown", "unknown");
		raise(new LeaseAlert(reason, scope, operation, reference));
	}

	/** Every alert is logged; the configured {@link LeaseAlerts} (metrics, audit) receives it as well. */
	private void raise(LeaseAlert alert) {
		LeaseAlerts.LOG.raise(alert);
		if (this.alerts != LeaseAlerts.LOG) {
			this.alerts.raise(alert);
		}
	}

	private static LeaseResult failed(ScriptFailure failure, boolean mutating) {
		switch (failure.kind()) {
			case DEADLINE_BEFORE_SUBMISSION:
				return LeaseResult.failure(ResultCode.DEADLINE_EXCEEDED, Reason.NONE, null);
			case NOT_SUBMITTED:
				return LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE, null);
			default:
				return LeaseResult.failure(
						mutating ? ResultCode.LEASE_OUTCOME_UNKNOWN : ResultCode.LEASE_BACKEND_UNAVAILABLE,
						Reason.REPLY_LOST, null);
		}
	}

	private static List<String> handleArgs(LeaseHandle handle) {
		return List.of(handle.leaseId(), handle.ownerPrincipalId(), handle.serviceInstanceId(),
				Long.toString(handle.fencingToken()));
	}

	private static String epochMillis(Instant instant) {
		return Long.toString(instant.toEpochMilli());
	}

	private static String millis(Duration duration) {
		return Long.toString(duration.toMillis());
	}

	/** The opaque list cursor: the same encoding as the reference store ({@code base64url("c1:" + lock key)}). */
	static final class ListCursor {

		private static final String PREFIX = "c1:" + LockIdentity.KEY_PREFIX;

		private ListCursor() {
		}

		static String encode(String digest) {
			return Base64.getUrlEncoder().withoutPadding().encodeToString((PREFIX + digest).getBytes(StandardCharsets.UTF_8));
		}

		static String decode(String cursor) {
			String text;
			try {
				text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidLeaseRequestException("cursor", "malformed");
			}
			String digest = text.startsWith(PREFIX) ? text.substring(PREFIX.length()) : "";
			if (!digest.matches("[A-Za-z0-9_-]{43}")) {
				throw new InvalidLeaseRequestException("cursor", "malformed");
			}
			return digest;
		}

	}

}
