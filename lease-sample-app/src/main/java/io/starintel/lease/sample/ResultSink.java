package io.starintel.lease.sample;

import java.util.List;

import io.starintel.lease.context.LeaseContext;

/**
 * Where a job's results go. The default profile only logs them; the {@code real} profile commits them through the
 * fenced checkpoint store, CouchDB connector and RabbitTemplate ({@link FencedResultSink}).
 */
interface ResultSink {

	/** Called under the lease before the work starts. */
	default void started(LeaseContext lease, TargetRef target, String worker) {
	}

	/** Commits the results of one target; returns whether every commit was accepted. */
	boolean commit(LeaseContext lease, TargetRef target, String worker, List<String> candidates);

	/** Number of targets whose results were committed (accepted) by this instance. */
	int committed();

}
