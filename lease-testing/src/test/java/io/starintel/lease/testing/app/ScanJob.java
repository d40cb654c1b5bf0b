package io.starintel.lease.testing.app;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Component;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.fence.couchdb.FencedCouchDbConnector;
import io.starintel.lease.job.TargetLeased;

/**
 * The leased job: holds its target until told to finish or cancelled (interrupted), then writes its result through
 * the fenced CouchDB connector. A cancelled job that writes anyway is the stale holder fencing must stop.
 */
@Component
public class ScanJob {

	private final FencedCouchDbConnector couchDb;

	private final Map<String, Run> runs = new ConcurrentHashMap<>();

	public ScanJob(@Qualifier("fencedCouchDbConnector") FencedCouchDbConnector couchDb) {
		this.couchDb = couchDb;
	}

	@TargetLeased(target = "#targetId", actor = "scanner", ttl = "3s", maxLifetime = "2m")
	public String scan(String targetId) {
		Run run = this.runs.computeIfAbsent(targetId, (id) -> new Run());
		run.context = LeaseContext.current().orElseThrow();
		try {
			run.finish.await(60, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			run.interrupted = true;
		}
		Map<String, Object> document = new LinkedHashMap<>();
		document.put("_id", "scan:" + targetId + ":" + run.context.fencingToken());
		document.put("target_id", targetId);
		run.write = this.couchDb.tryCreate(document);
		return "done";
	}

	/** Lets the job on {@code targetId} finish its work. */
	public void finish(String targetId) {
		this.runs.computeIfAbsent(targetId, (id) -> new Run()).finish.countDown();
	}

	public Run run(String targetId) {
		return this.runs.computeIfAbsent(targetId, (id) -> new Run());
	}

	/** What one job run saw. */
	public static final class Run {

		final CountDownLatch finish = new CountDownLatch(1);

		volatile @Nullable LeaseContext context;

		volatile boolean interrupted;

		volatile @Nullable FencedWriteResult write;

		public @Nullable LeaseContext context() {
			return this.context;
		}

		public boolean interrupted() {
			return this.interrupted;
		}

		public @Nullable FencedWriteResult write() {
			return this.write;
		}

	}

}
