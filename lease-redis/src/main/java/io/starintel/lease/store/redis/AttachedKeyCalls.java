package io.starintel.lease.store.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.internal.CorruptRecordException;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.LeaseAlert;
import io.starintel.lease.store.redis.internal.ScriptFailure;

/** The attached-key operations of {@link RedisLeaseStore} (docs/attachments.md): one call each, typed replies. */
final class AttachedKeyCalls {

	private final LeasePolicy policy;

	private final AttachArguments arguments;

	private final LeaseCalls calls;

	AttachedKeyCalls(LeasePolicy policy, AttachArguments arguments, LeaseCalls calls) {
		this.policy = policy;
		this.arguments = arguments;
		this.calls = calls;
	}

	AttachmentResult put(AttachPutRequest request) {
		try {
			this.policy.check(request, Instant.now());
		}
		catch (InvalidLeaseRequestException ex) {
			return AttachmentResult.invalid(ex);
		}
		IdentityKeys target = IdentityKeys.of(request.handle().identity());
		return attachment(this.arguments.put(target, request), true, target.identity.scope(), request.deadlineAt(),
				request.name());
	}

	AttachmentResult delete(AttachDeleteRequest request) {
		IdentityKeys target = IdentityKeys.of(request.handle().identity());
		return attachment(this.arguments.delete(target, request), true, target.identity.scope(), request.deadlineAt(),
				request.name());
	}

	AttachmentResult get(AttachGetRequest request) {
		return attachment(this.arguments.get(request), false, request.scope(), request.deadlineAt(), request.name());
	}

	AttachmentResult list(AttachListRequest request) {
		return attachment(this.arguments.list(request), false, request.scope(), request.deadlineAt(), null);
	}

	/** One attached-key function call and its typed reply (attach.lua's reply shapes). */
	private AttachmentResult attachment(FunctionCall call, boolean mutating, ProgramScope scope, Instant deadlineAt,
			@Nullable String name) {
		List<Object> reply;
		try {
			reply = this.calls.run(call, deadlineAt);
		}
		catch (ScriptFailure failure) {
			LeaseResult failed = LeaseCalls.failed(failure, mutating);
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
				corrupt(call, scope);
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
			corrupt(call, scope);
			return AttachmentResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.CORRUPT_RECORD, null);
		}
	}

	private void corrupt(FunctionCall call, ProgramScope scope) {
		this.calls.raise(new LeaseAlert(Reason.CORRUPT_RECORD, scope, call.function().name().toLowerCase(),
				"attached"));
	}

}
