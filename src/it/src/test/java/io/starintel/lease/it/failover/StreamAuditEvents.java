package io.starintel.lease.it.failover;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.StreamMessage;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.audit.internal.AuditEventBuilder;
import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;

/** Routine audit events for this package's stream sink suites, and their request ids read back from a stream. */
final class StreamAuditEvents {

	private StreamAuditEvents() {
	}

	/** A renewal event of {@code identity}. */
	static AuditEvent renewal(LockIdentity identity, String requestId, String correlationId) {
		return new AuditEventBuilder(AuditEventType.RENEW, ResultCode.LEASE_RENEWED).time(Instant.now(), Instant.now())
			.identity(identity)
			.ids(requestId, correlationId)
			.principal(PrincipalClass.WORKER, "worker-1", "key-1", "instance-1")
			.lease("lease-1", 42L)
			.build();
	}

	/**
	 * Records one batch of {@code perIdentity} renewal events per identity, in order, with request ids
	 * {@code req-<batch>-<program>-<i>}.
	 * @return their request ids
	 */
	static List<String> recordBatch(RedisStreamAuditSink sink, List<LockIdentity> identities, int batch,
			int perIdentity) {
		List<AuditEvent> events = new ArrayList<>();
		List<String> ids = new ArrayList<>();
		for (LockIdentity identity : identities) {
			for (int i = 0; i < perIdentity; i++) {
				String id = "req-" + batch + "-" + identity.programId() + "-" + i;
				ids.add(id);
				events.add(renewal(identity, id, "corr-" + batch));
			}
		}
		sink.recordAll(events);
		return ids;
	}

	/** The request ids of a stream's entries, in stream order. */
	static List<String> requestIds(List<StreamMessage<String, String>> entries) {
		return entries.stream().map((entry) -> entry.getBody().get("request_id")).toList();
	}

}
