package io.starintel.lease.sample;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.context.LeaseContext;

/**
 * The default profile's results: logged only (no servers). Used whenever no other {@link ResultSink} is defined.
 */
class LoggingResultSink implements ResultSink {

	private static final Logger logger = LoggerFactory.getLogger(LoggingResultSink.class);

	private final AtomicInteger committed = new AtomicInteger();

	@Override
	public boolean commit(LeaseContext lease, TargetRef target, String worker, List<String> candidates) {
		this.committed.incrementAndGet();
		logger.info("[{}] target {} results {} (memory profile: logged, not stored) under token {}", worker,
				target.id(), candidates, lease.fencingToken());
		return true;
	}

	@Override
	public int committed() {
		return this.committed.get();
	}

}
