package io.starintel.lease.testing.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.job.LeaseLostEvent;

/**
 * What the decorated store and the lost-lease listener saw: every lease acquired through the application's store (in
 * order), every release call per lease id (the aspect releases when the leased method returns, so a release call is
 * the end of the job), and every {@link LeaseLostEvent} per lease id. Waiting is on futures and on this object's
 * monitor: bounded, never a sleep.
 */
public final class LeaseObservations {

	private final List<LeaseRecord> acquired = new ArrayList<>();

	private final Set<String> excluded = ConcurrentHashMap.newKeySet();

	private final Map<String, CompletableFuture<LeaseLostEvent>> lost = new ConcurrentHashMap<>();

	private final Map<String, CompletableFuture<Void>> released = new ConcurrentHashMap<>();

	/** Records an acquisition (notifies waiters). */
	public void acquired(LeaseRecord record) {
		synchronized (this) {
			this.acquired.add(record);
			notifyAll();
		}
	}

	/** Marks a lease as not a job's (the tester's own competing holders). */
	public void exclude(String leaseId) {
		this.excluded.add(leaseId);
	}

	/** Whether the lease was acquired by a job of the application (not by the tester). */
	public boolean isJobLease(String leaseId) {
		return !this.excluded.contains(leaseId);
	}

	/** Records a release call for the lease. */
	public void releaseCalled(String leaseId) {
		releaseFuture(leaseId).complete(null);
	}

	/** Records a lost-lease event. */
	public void lost(LeaseLostEvent event) {
		lostFuture(event.context().leaseId()).complete(event);
	}

	public CompletableFuture<LeaseLostEvent> lostFuture(String leaseId) {
		return this.lost.computeIfAbsent(leaseId, (id) -> new CompletableFuture<>());
	}

	public CompletableFuture<Void> releaseFuture(String leaseId) {
		return this.released.computeIfAbsent(leaseId, (id) -> new CompletableFuture<>());
	}

	/** The acquisitions so far, oldest first. */
	public synchronized List<LeaseRecord> acquisitions() {
		return List.copyOf(this.acquired);
	}

	/**
	 * The newest acquisition matching {@code filter}, waiting up to {@code timeout} for one to be recorded;
	 * empty when none came in time.
	 */
	public Optional<LeaseRecord> awaitAcquisition(Predicate<LeaseRecord> filter, Duration timeout)
			throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		synchronized (this) {
			while (true) {
				for (int i = this.acquired.size() - 1; i >= 0; i--) {
					if (filter.test(this.acquired.get(i))) {
						return Optional.of(this.acquired.get(i));
					}
				}
				long remainingMs = (deadline - System.nanoTime()) / 1_000_000;
				if (remainingMs <= 0) {
					return Optional.empty();
				}
				wait(remainingMs);
			}
		}
	}

	/** Forgets every observation (between tests). */
	public synchronized void clear() {
		this.acquired.clear();
		this.excluded.clear();
		this.lost.clear();
		this.released.clear();
	}

}
