package com.example.consumer;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.job.LeaseLostEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/** What the one job of this process did, with timestamps, for the driver. */
@Component
public class JobState {

	private final Map<String, Object> values = new LinkedHashMap<>();

	private volatile boolean finish;

	private volatile LeaseContext lease;

	private volatile FencedWriteResult couchResult;

	private volatile FencedWriteResult rabbitResult;

	synchronized void reset() {
		this.values.clear();
		this.finish = false;
		this.lease = null;
		this.couchResult = null;
		this.rabbitResult = null;
	}

	synchronized void put(String key, Object value) {
		this.values.put(key, String.valueOf(value));
	}

	synchronized Map<String, Object> snapshot() {
		Map<String, Object> copy = new LinkedHashMap<>(this.values);
		LeaseContext current = this.lease;
		if (current != null) {
			copy.put("expires_at", current.expiresAt().toString());
			copy.put("lost", Boolean.toString(current.isLost()));
		}
		return copy;
	}

	void started(LeaseContext context) {
		this.lease = context;
		put("started_at", Instant.now());
		put("lease_id", context.leaseId());
		put("fencing_token", context.fencingToken());
		put("first_expires_at", context.expiresAt());
	}

	boolean finishRequested() {
		return this.finish;
	}

	void finish() {
		this.finish = true;
	}

	void interrupted() {
		put("interrupted_at", Instant.now());
	}

	void couchResult(FencedWriteResult result) {
		this.couchResult = result;
		put("couchdb", result.outcome().name() + "/" + result.reason().name());
	}

	void rabbitResult(FencedWriteResult result) {
		this.rabbitResult = result;
		put("rabbitmq", result.outcome().name() + "/" + result.reason().name());
	}

	/** The job's last fenced CouchDB write, or {@code null}. */
	public FencedWriteResult couchResult() {
		return this.couchResult;
	}

	/** The job's last fenced RabbitMQ publish, or {@code null}. */
	public FencedWriteResult rabbitResult() {
		return this.rabbitResult;
	}

	/** The job's lease context, or {@code null} before it started. */
	public LeaseContext lease() {
		return this.lease;
	}

	void returning() {
		put("job_returned_at", Instant.now());
	}

	@EventListener
	void on(LeaseLostEvent event) {
		put("lost_at", Instant.now());
		put("lost_reason", event.reason().name());
		put("expires_at_when_lost", event.context().expiresAt());
	}

}
