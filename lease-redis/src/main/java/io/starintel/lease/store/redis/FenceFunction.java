package io.starintel.lease.store.redis;

import io.starintel.lease.store.redis.internal.LeaseLibrary;

/** The fence functions of the lease function library ({@code fence.lua}), as {@link FenceCalls} runs them. */
public enum FenceFunction {

	/** A fenced job checkpoint or terminal-state write. */
	CHECKPOINT(LeaseLibrary.Function.CHECKPOINT),
	/** The stored checkpoint of one identity. */
	CHECKPOINT_READ(LeaseLibrary.Function.CHECKPOINT_READ),
	/** The consumer-side fence of a RabbitMQ delivery. */
	CONSUME(LeaseLibrary.Function.CONSUME),
	/** Raises a fenced CouchDB document's durable mark. */
	MARK_RAISE(LeaseLibrary.Function.MARK_RAISE),
	/** A fenced CouchDB document's mark and its identity's issued counter. */
	MARK_READ(LeaseLibrary.Function.MARK_READ);

	private final LeaseLibrary.Function function;

	FenceFunction(LeaseLibrary.Function function) {
		this.function = function;
	}

	LeaseLibrary.Function function() {
		return this.function;
	}

}
