package io.starintel.lease.sample;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.ektorp.CouchDbConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageBuilder;
import org.springframework.amqp.core.MessageProperties;

import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.fence.amqp.FencedRabbitTemplate;
import io.starintel.lease.fence.checkpoint.CheckpointState;
import io.starintel.lease.fence.checkpoint.CheckpointStore;
import io.starintel.lease.fence.couchdb.FencedCouchDbConnector;
import io.starintel.lease.context.LeaseContext;

/**
 * The {@code real} profile's results, each commit fenced by the job's lease: a Redis checkpoint
 * ({@code in_progress} at the start, {@code completed} at the end), a result document per target in CouchDB
 * (update-or-create with its {@code _rev}, stamped with {@code starintel_fence}) and a result message on the
 * results queue. Every commit logs whether it was accepted or rejected, with the instance and the token.
 */
class FencedResultSink implements ResultSink {

	private static final Logger logger = LoggerFactory.getLogger(FencedResultSink.class);

	private final CheckpointStore checkpoints;

	private final FencedCouchDbConnector couchDb;

	private final FencedRabbitTemplate rabbit;

	private final String queue;

	private final AtomicInteger committed = new AtomicInteger();

	FencedResultSink(CheckpointStore checkpoints, FencedCouchDbConnector couchDb, FencedRabbitTemplate rabbit,
			String queue) {
		this.checkpoints = checkpoints;
		this.couchDb = couchDb;
		this.rabbit = rabbit;
		this.queue = queue;
	}

	/** The document id of a target's result. */
	static String documentId(String targetId) {
		return "usernamegen:" + targetId;
	}

	@Override
	public void started(LeaseContext lease, TargetRef target, String worker) {
		report(lease, target, worker, "checkpoint in_progress",
				this.checkpoints.write(lease, CheckpointState.IN_PROGRESS, "generating"));
	}

	@Override
	public boolean commit(LeaseContext lease, TargetRef target, String worker, List<String> candidates) {
		boolean accepted = report(lease, target, worker, "checkpoint completed",
				this.checkpoints.write(lease, CheckpointState.COMPLETED, candidates.size() + " candidates"));
		accepted &= report(lease, target, worker, "couchdb result document", writeDocument(lease, target, candidates));
		accepted &= report(lease, target, worker, "rabbitmq result message", publish(lease, target, candidates));
		if (accepted) {
			this.committed.incrementAndGet();
		}
		return accepted;
	}

	@SuppressWarnings("unchecked")
	private FencedWriteResult writeDocument(LeaseContext lease, TargetRef target, List<String> candidates) {
		String id = documentId(target.id());
		CouchDbConnector reader = this.couchDb.delegate();
		Map<String, Object> document = reader.contains(id) ? reader.get(Map.class, id) : new LinkedHashMap<>();
		document.put("_id", id);
		document.put("target_id", target.id());
		document.put("display_name", target.displayName());
		document.put("candidates", candidates);
		document.put("instance", lease.lease().owner().serviceInstanceId());
		document.put("written_at", Instant.now().toString());
		return document.containsKey("_rev") ? this.couchDb.tryUpdate(document) : this.couchDb.tryCreate(document);
	}

	private FencedWriteResult publish(LeaseContext lease, TargetRef target, List<String> candidates) {
		String body = "{\"target_id\":\"" + target.id() + "\",\"instance\":\""
				+ lease.lease().owner().serviceInstanceId() + "\",\"candidates\":" + candidates.size() + "}";
		Message message = MessageBuilder.withBody(body.getBytes(StandardCharsets.UTF_8))
			.setContentType(MessageProperties.CONTENT_TYPE_JSON)
			.build();
		return this.rabbit.trySend("", this.queue, message);
	}

	private static boolean report(LeaseContext lease, TargetRef target, String worker, String what,
			FencedWriteResult result) {
		String instance = lease.lease().owner().serviceInstanceId();
		if (result.isAccepted()) {
			logger.info("[{}] instance {} target {} token {}: {} ACCEPTED ({})", worker, instance, target.id(),
					lease.fencingToken(), what, result.outcome().wireName());
		}
		else {
			logger.warn("[{}] instance {} target {} token {}: {} REJECTED ({}, reason {}, correlation {})", worker,
					instance, target.id(), lease.fencingToken(), what, result.outcome().wireName(), result.reason(),
					result.correlationId());
		}
		return result.isAccepted();
	}

	@Override
	public int committed() {
		return this.committed.get();
	}

}
