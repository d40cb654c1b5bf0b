package io.starintel.lease.store.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.AcquireRequest;
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
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.internal.ListCursors;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.LockIdentity;
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
 */
public final class RedisLeaseStore implements LeaseStore {

	/** How long a record physically outlives its {@code expires_at} (reclamation only, never authority). */
	static final Duration PHYSICAL_GRACE = Duration.ofMinutes(5);

	/** Approximate bound of each program's audit stream. */
	static final int AUDIT_STREAM_LENGTH = 100_000;

	private final ScriptExecutor executor;

	private final LeasePolicy policy;

	private final LeaseAlerts alerts;

	private final LeaseArguments arguments;

	private final ListCursors cursors;

	/**
	 * A store on a Lettuce-backed connection factory (standalone, sentinel or cluster), with list cursors under a
	 * random per-store secret.
	 * @param connectionFactory Spring Data Redis connection factory; must be a {@code LettuceConnectionFactory}
	 * @param policy server policy (TTL bounds, lifetime, deadlines, retention, page size, clock-skew bound)
	 * @param alerts receives corrupt-record and counter alerts (in addition to the log)
	 */
	public RedisLeaseStore(RedisConnectionFactory connectionFactory, LeasePolicy policy, LeaseAlerts alerts) {
		this(connectionFactory, policy, alerts, new ListCursors());
	}

	/**
	 * A store whose list cursors use {@code cursors} (pass the same secret to every instance serving a program).
	 */
	public RedisLeaseStore(RedisConnectionFactory connectionFactory, LeasePolicy policy, LeaseAlerts alerts,
			ListCursors cursors) {
		this.executor = new ScriptExecutor(Objects.requireNonNull(connectionFactory, "connectionFactory"));
		this.policy = Objects.requireNonNull(policy, "policy");
		this.alerts = Objects.requireNonNull(alerts, "alerts");
		this.arguments = new LeaseArguments(policy, PHYSICAL_GRACE);
		this.cursors = Objects.requireNonNull(cursors, "cursors");
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
		String leaseId = Identifiers.generate("lease");
		return executeLeaseCall(this.arguments.acquire(target, request, leaseId), "acquire", true, target, request.deadlineAt(),
				request, leaseId);
	}

	@Override
	public LeaseResult renew(RenewRequest request) {
		LeaseResult invalid = invalidTtl(request);
		if (invalid != null) {
			return invalid;
		}
		IdentityKeys target = IdentityKeys.of(request.handle().identity());
		return executeLeaseCall(this.arguments.renew(target, request), "renew", true, target, request.deadlineAt(), null, null);
	}

	/** A renewal's new TTL outside policy ({@link LeasePolicy#checkRenewTtl}): invalid, nothing sent; else null. */
	private @Nullable LeaseResult invalidTtl(RenewRequest request) {
		Long ttl = request.ttlMs();
		if (ttl == null) {
			return null;
		}
		try {
			this.policy.checkRenewTtl(ttl);
			return null;
		}
		catch (InvalidLeaseRequestException ex) {
			return LeaseResult.invalid(ex);
		}
	}

	/**
	 * Renews the leases of each program in one function call per program (one slot), at most
	 * {@link #MAX_RENEW_BATCH} per call. Each lease's deadline is honoured on its own: one already passed is not
	 * sent, the function checks each at backend time, and a success whose reply arrived after that lease's deadline
	 * is {@code lease_outcome_unknown}; the reply is awaited no longer than the latest deadline of the call.
	 */
	@Override
	public List<LeaseResult> renewAll(List<RenewRequest> requests) {
		LeaseResult[] results = new LeaseResult[requests.size()];
		Map<ProgramScope, List<Integer>> byProgram = new LinkedHashMap<>();
		for (int i = 0; i < requests.size(); i++) {
			byProgram.computeIfAbsent(requests.get(i).handle().identity().scope(), k -> new ArrayList<>()).add(i);
		}
		long nowMs = System.currentTimeMillis();
		for (List<Integer> group : byProgram.values()) {
			// a lease whose deadline already passed, or whose new TTL is out of policy, is not sent (nothing
			// mutated), like a single renew
			group.removeIf(index -> {
				LeaseResult invalid = invalidTtl(requests.get(index));
				if (invalid != null) {
					results[index] = invalid;
					return true;
				}
				if (requests.get(index).deadlineAt().toEpochMilli() <= nowMs) {
					results[index] = LeaseResult.failure(ResultCode.DEADLINE_EXCEEDED, Reason.NONE, null);
					return true;
				}
				return false;
			});
			for (int from = 0; from < group.size(); from += MAX_RENEW_BATCH) {
				renewChunk(requests, group.subList(from, Math.min(group.size(), from + MAX_RENEW_BATCH)), results);
			}
		}
		return Arrays.asList(results);
	}

	private void renewChunk(List<RenewRequest> requests, List<Integer> indexes, LeaseResult[] results) {
		List<IdentityKeys> targets = new ArrayList<>(indexes.size());
		List<RenewRequest> chunk = new ArrayList<>(indexes.size());
		Instant latest = null;
		for (int index : indexes) {
			RenewRequest request = requests.get(index);
			chunk.add(request);
			targets.add(IdentityKeys.of(request.handle().identity()));
			if (latest == null || request.deadlineAt().isAfter(latest)) {
				latest = request.deadlineAt();
			}
		}
		LeaseArguments.Call call = this.arguments.renewBatch(targets, chunk);
		List<Object> reply;
		try {
			reply = this.executor.run(call.function(), latest, call.keys(), call.args());
		}
		catch (ScriptFailure failure) {
			LeaseResult failed = failed(failure, true);
			for (int index : indexes) {
				results[index] = failed;
			}
			return;
		}
		long replyMs = System.currentTimeMillis();
		int position = 0;
		for (int i = 0; i < indexes.size(); i++) {
			IdentityKeys target = targets.get(i);
			LeaseResult result;
			try {
				int size = Integer.parseInt(ReplyReader.text(reply, position));
				result = checked(ReplyReader.single(reply, position + 1, size, target.identity, null, null), target,
						"renew");
				position += 1 + size;
				if (result.isSuccess() && replyMs > chunk.get(i).deadlineAt().toEpochMilli()) {
					// the reply came after this lease's own deadline: as for a single renew, the outcome is unknown
					result = LeaseResult.failure(ResultCode.LEASE_OUTCOME_UNKNOWN, Reason.REPLY_LOST, result.decidedAt());
				}
			}
			catch (CorruptRecordException | IllegalArgumentException | IndexOutOfBoundsException ex) {
				alert(Reason.CORRUPT_RECORD, target.identity, target.digest, "renew");
				result = LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.CORRUPT_RECORD, null);
				position = Integer.MAX_VALUE / 2;
			}
			results[indexes.get(i)] = result;
		}
	}

	@Override
	public LeaseResult release(ReleaseRequest request) {
		IdentityKeys target = IdentityKeys.of(request.handle().identity());
		return executeLeaseCall(this.arguments.release(target, request), "release", true, target, request.deadlineAt(), null,
				null);
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
		return executeLeaseCall(this.arguments.administer(target, request, AUDIT_STREAM_LENGTH), request.operation().wireName(),
				true, target, request.deadlineAt(), null, null);
	}

	@Override
	public LeaseResult authorizeCommit(CommitRequest request) {
		IdentityKeys target = IdentityKeys.of(request.handle().identity());
		return executeLeaseCall(this.arguments.authorize(target, request), "authorize_commit", true, target,
				request.deadlineAt(), null, null);
	}

	@Override
	public LeaseResult inspect(InspectRequest request) {
		if (request.identity() != null) {
			if (!request.identity().scope().equals(request.scope())) {
				return LeaseResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.NONE, null);
			}
			IdentityKeys target = IdentityKeys.of(request.identity());
			return executeLeaseCall(this.arguments.inspect(target, request.deadlineAt()), "inspect", false, target,
					request.deadlineAt(), null, null);
		}
		LeaseResult result = executeLeaseCall(
				this.arguments.inspectByLeaseId(request.scope(), request.leaseId(), request.deadlineAt()), "inspect",
				false, null, request.deadlineAt(), null, null);
		if (result.lease() != null && !result.lease().identity().scope().equals(request.scope())) {
			return LeaseResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.NONE, result.decidedAt());
		}
		return result;
	}

	@Override
	public LeasePage list(ListRequest request) {
		ListFilter filter = request.filter();
		String after;
		try {
			after = (request.cursor() != null) ? this.cursors.decode(request.cursor(), filter) : "";
		}
		catch (InvalidLeaseRequestException ex) {
			return LeasePage.failure(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE, null);
		}
		int pageSize = this.policy.pageSize(request.pageSize());
		LeaseArguments.Call call = this.arguments.list(filter, after, pageSize, request.deadlineAt());
		try {
			List<Object> reply = this.executor.run(call.function(), request.deadlineAt(), call.keys(), call.args());
			return page(reply, filter);
		}
		catch (ScriptFailure failure) {
			LeaseResult result = failed(failure, false);
			return LeasePage.failure(result.code(), result.reason(), null);
		}
	}

	private LeasePage page(List<Object> reply, ListFilter filter) {
		ResultCode code = ResultCode.fromWireName(ReplyReader.text(reply, 0));
		Instant decidedAt = Instant.ofEpochMilli(Long.parseLong(ReplyReader.text(reply, 2)));
		if (code != ResultCode.LEASE_LISTED) {
			return LeasePage.failure(code, Reason.NONE, decidedAt);
		}
		String next = ReplyReader.text(reply, 3);
		long corrupt = Long.parseLong(ReplyReader.text(reply, 4));
		List<LeaseRecord> leases = new ArrayList<>();
		for (int i = 5; i < reply.size(); i++) {
			String entry = ReplyReader.text(reply, i);
			int sep = entry.indexOf(StoredRecord.SEP);
			try {
				LeaseRecord lease = ReplyReader.record(entry.substring(sep + 1), null);
				if (sep <= 0 || !lease.identity().keyDigest().equals(entry.substring(0, sep))
						|| !lease.identity().scope().equals(filter.scope())) {
					throw new CorruptRecordException("record does not belong to its key");
				}
				leases.add(lease);
			}
			catch (CorruptRecordException ex) {
				corrupt++;
			}
		}
		if (corrupt > 0) {
			raise(new LeaseAlert(Reason.CORRUPT_RECORD, filter.scope(), "list", "index"));
		}
		return new LeasePage(ResultCode.LEASE_LISTED, Reason.NONE, leases,
				next.isEmpty() ? null : this.cursors.encode(next, filter), decidedAt);
	}

	@Override
	public AttachmentResult putAttached(AttachPutRequest request) {
		try {
			this.policy.check(request, Instant.now());
		}
		catch (InvalidLeaseRequestException ex) {
			return AttachmentResult.invalid(ex);
		}
		IdentityKeys target = IdentityKeys.of(request.handle().identity());
		return attachment(this.arguments.attachPut(target, request, this.policy.maximumAttachedKeys()), true,
				target.identity.scope(), request.deadlineAt(), request.name());
	}

	@Override
	public AttachmentResult deleteAttached(AttachDeleteRequest request) {
		IdentityKeys target = IdentityKeys.of(request.handle().identity());
		return attachment(this.arguments.attachDelete(target, request), true, target.identity.scope(),
				request.deadlineAt(), request.name());
	}

	@Override
	public AttachmentResult getAttached(AttachGetRequest request) {
		return attachment(this.arguments.attachGet(request), false, request.scope(), request.deadlineAt(),
				request.name());
	}

	@Override
	public AttachmentResult listAttached(AttachListRequest request) {
		return attachment(this.arguments.attachList(request), false, request.scope(), request.deadlineAt(), null);
	}

	/** One attached-key function call and its typed reply (attach.lua's reply shapes). */
	private AttachmentResult attachment(LeaseArguments.Call call, boolean mutating, ProgramScope scope,
			Instant deadlineAt, @Nullable String name) {
		List<Object> reply;
		try {
			reply = this.executor.run(call.function(), deadlineAt, call.keys(), call.args());
		}
		catch (ScriptFailure failure) {
			LeaseResult failed = failed(failure, mutating);
			return AttachmentResult.failure(failed.code(), failed.reason(), null);
		}
		try {
			ResultCode code = ResultCode.fromWireName(ReplyReader.text(reply, 0));
			if (code == ResultCode.INVALID_LEASE_REQUEST) {
				return AttachmentResult.invalid(
						new InvalidLeaseRequestException("deadline_at", "further ahead than the policy allows"));
			}
			Reason reason = Reason.fromWireName(ReplyReader.text(reply, 1));
			Instant decidedAt = Instant.ofEpochMilli(Long.parseLong(ReplyReader.text(reply, 2)));
			if (reason == Reason.CORRUPT_RECORD) {
				raise(new LeaseAlert(Reason.CORRUPT_RECORD, scope, call.function().name().toLowerCase(), "attached"));
			}
			switch (code) {
				case ATTACHMENT_READ:
					return AttachmentResult.read(ReplyReader.text(reply, 5), ReplyReader.text(reply, 6),
							ReplyReader.text(reply, 4), decidedAt);
				case ATTACHMENTS_LISTED:
					List<String> names = new ArrayList<>(reply.size() - 5);
					for (int i = 5; i < reply.size(); i++) {
						names.add(ReplyReader.text(reply, i));
					}
					names.sort(null);
					return AttachmentResult.listed(ReplyReader.text(reply, 4), names, decidedAt);
				case ATTACHMENT_STORED:
				case ATTACHMENT_DELETED:
					boolean replayed = reply.size() >= 6 && "1".equals(ReplyReader.text(reply, 5));
					AttachmentResult done = AttachmentResult.done(code, Objects.requireNonNull(name), decidedAt);
					return replayed ? done.asReplay() : done;
				default:
					return AttachmentResult.failure(code, reason, decidedAt);
			}
		}
		catch (CorruptRecordException | IllegalArgumentException | IndexOutOfBoundsException ex) {
			raise(new LeaseAlert(Reason.CORRUPT_RECORD, scope, call.function().name().toLowerCase(), "attached"));
			return AttachmentResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.CORRUPT_RECORD, null);
		}
	}

	/** The administer script appends each force-release/revoke decision to {@code P{T}:audit} atomically. */
	@Override
	public boolean writesAdminAuditAtomically() {
		return true;
	}

	@Override
	public LeaseResult resolve(ResolveRequest request) {
		IdentityKeys target = IdentityKeys.of(request.identity());
		return executeLeaseCall(this.arguments.resolve(target, request.operation(), request.principalId(), request.requestId(),
				request.deadlineAt()), "resolve", false, target, request.deadlineAt(), null, null);
	}

	/**
	 * One call of the {@code sweep} function ({@code sweep.lua}): the program's due leases, at most the batch limit,
	 * each re-checked and ended in the script. A reply that arrives after the deadline, or not at all, is
	 * {@link SweepResult.Status#OUTCOME_UNKNOWN} (the leases it ended keep their terminal evidence).
	 */
	@Override
	public SweepResult sweepExpired(SweepRequest request) {
		LeaseArguments.Call call = this.arguments.sweep(request.scope(), request.batchLimit(), request.deadlineAt());
		List<Object> reply;
		try {
			reply = this.executor.run(call.function(), request.deadlineAt(), call.keys(), call.args());
		}
		catch (ScriptFailure failure) {
			return SweepResult.failure(switch (failure.kind()) {
				case DEADLINE_BEFORE_SUBMISSION -> SweepResult.Status.DEADLINE_EXCEEDED;
				case NOT_SUBMITTED -> SweepResult.Status.BACKEND_UNAVAILABLE;
				default -> SweepResult.Status.OUTCOME_UNKNOWN;
			}, null);
		}
		try {
			return sweepResult(reply, request.scope());
		}
		catch (CorruptRecordException | IllegalArgumentException | IndexOutOfBoundsException ex) {
			raise(new LeaseAlert(Reason.CORRUPT_RECORD, request.scope(), "sweep", "reply"));
			return SweepResult.failure(SweepResult.Status.OUTCOME_UNKNOWN, null);
		}
	}

	private SweepResult sweepResult(List<Object> reply, ProgramScope scope) {
		Instant decidedAt = Instant.ofEpochMilli(Long.parseLong(ReplyReader.text(reply, 1)));
		if (!"swept".equals(ReplyReader.text(reply, 0))) {
			return SweepResult.failure(SweepResult.Status.DEADLINE_EXCEEDED, decidedAt);
		}
		List<LeaseRecord> ended = new ArrayList<>(reply.size() - 6);
		for (int i = 6; i < reply.size(); i++) {
			String entry = ReplyReader.text(reply, i);
			int sep = entry.indexOf(StoredRecord.SEP);
			try {
				LeaseRecord lease = ReplyReader.record(entry.substring(sep + 1), null);
				if (sep <= 0 || !lease.identity().keyDigest().equals(entry.substring(0, sep))
						|| !lease.identity().scope().equals(scope)) {
					throw new CorruptRecordException("record does not belong to its key");
				}
				ended.add(lease);
			}
			catch (CorruptRecordException ex) {
				// ended in the script (evidence kept) but not reportable: alert, never a raw key in the log
				raise(new LeaseAlert(Reason.CORRUPT_RECORD, scope, "sweep", "history"));
			}
		}
		return new SweepResult(SweepResult.Status.SWEPT, ended, Integer.parseInt(ReplyReader.text(reply, 2)),
				Long.parseLong(ReplyReader.text(reply, 3)), "1".equals(ReplyReader.text(reply, 4)),
				Long.parseLong(ReplyReader.text(reply, 5)), decidedAt);
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
		String requestId = Identifiers.generate("request");
		long total = 0;
		while (true) {
			LeaseArguments.Call call = this.arguments.recover(scope, 500, adminPrincipalId, adminCredentialId, reason,
					requestId, AUDIT_STREAM_LENGTH, deadlineAt);
			List<Object> reply;
			try {
				reply = this.executor.run(call.function(), deadlineAt, call.keys(), call.args());
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

	private LeaseResult executeLeaseCall(LeaseArguments.Call call, String operation, boolean mutating,
			@Nullable IdentityKeys target, Instant deadlineAt, @Nullable AcquireRequest acquire,
			@Nullable String leaseId) {
		LockIdentity identity = (target != null) ? target.identity : null;
		List<Object> reply;
		try {
			reply = this.executor.run(call.function(), deadlineAt, call.keys(), call.args());
		}
		catch (ScriptFailure failure) {
			return failed(failure, mutating);
		}
		try {
			return checked(ReplyReader.single(reply, identity, acquire, leaseId), target, operation);
		}
		catch (CorruptRecordException | IllegalArgumentException | IndexOutOfBoundsException ex) {
			alert(Reason.CORRUPT_RECORD, identity, (target != null) ? target.digest : "lease-id", operation);
			return LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.CORRUPT_RECORD, null);
		}
	}

	/** Raises the alert a result calls for (corrupt record, counter exhausted, clock behind) and returns it. */
	private LeaseResult checked(LeaseResult result, @Nullable IdentityKeys target, String operation) {
		if (result.reason() == Reason.CORRUPT_RECORD || result.reason() == Reason.FENCING_COUNTER_EXHAUSTED
				|| result.reason() == Reason.BACKEND_CLOCK_BEHIND) {
			alert(result.reason(), (target != null) ? target.identity : null,
					(target != null) ? target.digest : "lease-id", operation);
		}
		return result;
	}

	private void alert(Reason reason, @Nullable LockIdentity identity, String reference, String operation) {
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

}
