package com.example.consumer;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.fence.amqp.FencedRabbitTemplate;
import io.starintel.lease.fence.couchdb.FencedCouchDbConnector;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.job.TargetLeased;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageBuilder;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The leased job: holds its target until cancelled (or told to finish), then tries its fenced CouchDB write and
 * RabbitMQ publish, recording each outcome. A cancelled job writing afterwards is exactly the stale holder that
 * fencing must stop.
 */
@Component
public class ScanJob {

	private final JobState state;

	private final FencedCouchDbConnector couchDb;

	private final FencedRabbitTemplate rabbit;

	private final String queue;

	ScanJob(JobState state, @Qualifier("fencedCouchDbConnector") FencedCouchDbConnector couchDb,
			FencedRabbitTemplate rabbit, @Value("${consumer.queue}") String queue) {
		this.state = state;
		this.couchDb = couchDb;
		this.rabbit = rabbit;
		this.queue = queue;
	}

	@TargetLeased(target = "#targetId", actor = "consumer", ttl = "6s", maxLifetime = "5m")
	public String scan(String targetId) {
		LeaseContext lease = LeaseContext.current().orElseThrow();
		this.state.started(lease);
		try {
			while (!this.state.finishRequested()) {
				Thread.sleep(20);
			}
		}
		catch (InterruptedException ex) {
			this.state.interrupted();
		}
		this.state.couchResult(writeDocument(lease, targetId));
		this.state.rabbitResult(publish(lease, targetId));
		this.state.returning();
		return "done";
	}

	private FencedWriteResult writeDocument(LeaseContext lease, String targetId) {
		Map<String, Object> document = new LinkedHashMap<>();
		document.put("_id", "consumer:" + targetId + ":" + lease.fencingToken());
		document.put("target_id", targetId);
		document.put("written_at", Instant.now().toString());
		return this.couchDb.tryCreate(document);
	}

	private FencedWriteResult publish(LeaseContext lease, String targetId) {
		Message message = MessageBuilder
			.withBody(("{\"target_id\":\"" + targetId + "\",\"token\":" + lease.fencingToken() + "}")
				.getBytes(StandardCharsets.UTF_8))
			.build();
		return this.rabbit.trySend("", this.queue, message);
	}

}
