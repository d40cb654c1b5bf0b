package io.starintel.lease.store.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.internal.CorruptRecordException;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.redis.internal.ScriptFailure;

/**
 * Batched renewal ({@link RedisLeaseStore#renewAll}): the leases of each program in one {@code renew_batch} call per
 * program (one slot), at most {@link LeaseStore#MAX_RENEW_BATCH} per call, each lease's deadline honoured on its own.
 */
final class RenewBatches {

	private final LeasePolicy policy;

	private final LeaseArguments arguments;

	private final LeaseCalls calls;

	RenewBatches(LeasePolicy policy, LeaseArguments arguments, LeaseCalls calls) {
		this.policy = policy;
		this.arguments = arguments;
		this.calls = calls;
	}

	/** A renewal's new TTL outside policy ({@link LeasePolicy#checkRenewTtl}): invalid, nothing sent; else null. */
	static @Nullable LeaseResult invalidTtl(LeasePolicy policy, RenewRequest request) {
		Long ttl = request.ttlMs();
		if (ttl == null) {
			return null;
		}
		try {
			policy.checkRenewTtl(ttl);
			return null;
		}
		catch (InvalidLeaseRequestException ex) {
			return LeaseResult.invalid(ex);
		}
	}

	/**
	 * One result per request, in order. A lease whose deadline has already passed is not sent, the function checks
	 * each at backend time, and a success whose reply arrived after that lease's deadline is
	 * {@code lease_outcome_unknown}; the reply is awaited no longer than the latest deadline of the call.
	 */
	List<LeaseResult> renewAll(List<RenewRequest> requests) {
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
				LeaseResult invalid = invalidTtl(this.policy, requests.get(index));
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
			for (int from = 0; from < group.size(); from += LeaseStore.MAX_RENEW_BATCH) {
				renewChunk(requests, group.subList(from, Math.min(group.size(), from + LeaseStore.MAX_RENEW_BATCH)),
						results);
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
		FunctionCall call = this.arguments.renewBatch(targets, chunk);
		List<Object> reply;
		try {
			reply = this.calls.run(call, latest);
		}
		catch (ScriptFailure failure) {
			LeaseResult failed = LeaseCalls.failed(failure, true);
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
				result = this.calls.checked(ReplyReader.single(reply, position + 1, size, target.identity, null, null),
						target, "renew");
				position += 1 + size;
				if (result.isSuccess() && replyMs > chunk.get(i).deadlineAt().toEpochMilli()) {
					// the reply came after this lease's own deadline: as for a single renew, the outcome is unknown
					result = LeaseResult.failure(ResultCode.LEASE_OUTCOME_UNKNOWN, Reason.REPLY_LOST, result.decidedAt());
				}
			}
			catch (CorruptRecordException | IllegalArgumentException | IndexOutOfBoundsException ex) {
				this.calls.alert(Reason.CORRUPT_RECORD, target.identity, target.digest, "renew");
				result = LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.CORRUPT_RECORD, null);
				position = Integer.MAX_VALUE / 2;
			}
			results[indexes.get(i)] = result;
		}
	}

}
