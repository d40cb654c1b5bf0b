package io.starintel.lease.store.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.starintel.lease.core.internal.CorruptRecordException;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.internal.ListCursors;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.LeaseAlert;
import io.starintel.lease.store.redis.internal.ScriptFailure;

/**
 * {@link RedisLeaseStore#list}: one {@code list} call per page, in key-digest order, with the opaque signed cursors
 * of {@link ListCursors}; records that do not decode or do not belong to their key are counted and alerted, never
 * returned.
 */
final class LeaseListing {

	private final LeasePolicy policy;

	private final ProgramArguments arguments;

	private final LeaseCalls calls;

	private final ListCursors cursors;

	LeaseListing(LeasePolicy policy, ProgramArguments arguments, LeaseCalls calls, ListCursors cursors) {
		this.policy = policy;
		this.arguments = arguments;
		this.calls = calls;
		this.cursors = cursors;
	}

	LeasePage list(ListRequest request) {
		ListFilter filter = request.filter();
		String after;
		try {
			after = (request.cursor() != null) ? this.cursors.decode(request.cursor(), filter) : "";
		}
		catch (InvalidLeaseRequestException ex) {
			return LeasePage.failure(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE, null);
		}
		int pageSize = this.policy.pageSize(request.pageSize());
		FunctionCall call = this.arguments.list(filter, after, pageSize, request.deadlineAt());
		try {
			return page(this.calls.run(call, request.deadlineAt()), filter);
		}
		catch (ScriptFailure failure) {
			LeaseResult result = LeaseCalls.failed(failure, false);
			return LeasePage.failure(result.code(), result.reason(), null);
		}
	}

	private LeasePage page(List<Object> reply, ListFilter filter) {
		ResultCode code = ResultCode.fromWireName(ReplyReader.text(reply, 0));
		Instant decidedAt = Instant.ofEpochMilli(Long.parseLong(ReplyReader.text(reply, 2)));
		if (code != ResultCode.LEASE_LISTED) {
			Reason reason = LeaseCalls.refusedForRecovery(reply) ? Reason.RECOVERY_REQUIRED : Reason.NONE;
			return LeasePage.failure(code, reason, decidedAt);
		}
		String next = ReplyReader.text(reply, 3);
		long corrupt = Long.parseLong(ReplyReader.text(reply, 4));
		List<LeaseRecord> leases = new ArrayList<>();
		for (int i = 5; i < reply.size(); i++) {
			try {
				leases.add(ReplyReader.keyedRecord(reply.get(i), filter.scope()));
			}
			catch (CorruptRecordException ex) {
				corrupt++;
			}
		}
		if (corrupt > 0) {
			this.calls.raise(new LeaseAlert(Reason.CORRUPT_RECORD, filter.scope(), "list", "index"));
		}
		return new LeasePage(ResultCode.LEASE_LISTED, Reason.NONE, leases,
				next.isEmpty() ? null : this.cursors.encode(next, filter), decidedAt);
	}

}
