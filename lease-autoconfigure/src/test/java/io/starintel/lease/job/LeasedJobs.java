package io.starintel.lease.job;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import io.starintel.lease.context.LeaseContext;

/** Leased test methods; every call records the context it saw. */
public class LeasedJobs {

	private final JobState state;

	public LeasedJobs(JobState state) {
		this.state = state;
	}

	private LeasedJobs self;

	private AsyncWorker worker;

	public void setSelf(LeasedJobs self) {
		this.self = self;
	}

	public void setWorker(AsyncWorker worker) {
		this.worker = worker;
	}

	@TargetLeased(target = "#target", actor = "usernamegen", ttl = "3s", maxLifetime = "1m")
	public String process(String target) {
		this.state.runs.incrementAndGet();
		LeaseContext context = LeaseContext.current().orElseThrow();
		this.state.seen.add(context);
		return context.leaseId();
	}

	@TargetLeased(target = "#target", actor = "usernamegen", ttl = "3s", maxLifetime = "1m")
	public Optional<String> processOptional(String target) {
		this.state.runs.incrementAndGet();
		return Optional.of("ran");
	}

	@TargetLeased(target = "#target", actor = "usernamegen", ttl = "3s", maxLifetime = "1m",
			onConflict = ConflictPolicy.THROW)
	public String processOrThrow(String target) {
		this.state.runs.incrementAndGet();
		return "ran";
	}

	@TargetLeased(target = "#target", actor = "usernamegen", ttl = "3s", maxLifetime = "1m",
			onConflict = ConflictPolicy.THROW, waitFor = "5s")
	public String processWaiting(String target) {
		this.state.runs.incrementAndGet();
		return "ran";
	}

	@TargetLeased(target = "#target", actor = "usernamegen", ttl = "3s", maxLifetime = "1m")
	public void fail(String target) {
		this.state.runs.incrementAndGet();
		this.state.seen.add(LeaseContext.current().orElseThrow());
		throw new IllegalStateException("job failed");
	}

	@TargetLeased(target = "#target", actor = "usernamegen", ttl = "3s", maxLifetime = "1m")
	public CompletableFuture<String> processLater(String target) {
		this.state.runs.incrementAndGet();
		LeaseContext context = LeaseContext.current().orElseThrow();
		this.state.seen.add(context);
		return CompletableFuture.supplyAsync(() -> {
			await(this.state.proceed);
			return context.leaseId();
		});
	}

	/** Holds the lease until {@link #proceed} opens (or the thread is interrupted). */
	@TargetLeased(target = "#target", actor = "usernamegen", ttl = "3s", maxLifetime = "1m")
	public void hold(String target) {
		this.state.runs.incrementAndGet();
		this.state.blockedContext.set(LeaseContext.current().orElseThrow());
		this.state.started.countDown();
		blockUntilProceedOrInterrupt();
	}

	/** Like {@link #hold} with a long TTL: its first renewal is 40 s away. */
	@TargetLeased(target = "#target", actor = "usernamegen", ttl = "120s", maxLifetime = "10m")
	public void holdLong(String target) {
		this.state.runs.incrementAndGet();
		this.state.blockedContext.set(LeaseContext.current().orElseThrow());
		this.state.started.countDown();
		blockUntilProceedOrInterrupt();
	}

	/** Like {@link #hold} but with a short maximum lifetime. */
	@TargetLeased(target = "#target", actor = "usernamegen", ttl = "1500ms", maxLifetime = "2s")
	public void holdPastLifetime(String target) {
		this.state.runs.incrementAndGet();
		this.state.blockedContext.set(LeaseContext.current().orElseThrow());
		this.state.started.countDown();
		blockUntilProceedOrInterrupt();
	}

	/** A future-returning job that never completes by itself: lease loss cancels it. */
	@TargetLeased(target = "#target", actor = "usernamegen", ttl = "3s", maxLifetime = "1m")
	public CompletableFuture<String> holdLater(String target) {
		this.state.blockedContext.set(LeaseContext.current().orElseThrow());
		return new CompletableFuture<>();
	}

	@TargetLeased(target = "#target", actor = "usernamegen", ttl = "3s", maxLifetime = "1m")
	public String outer(String target, String innerTarget) {
		LeaseContext outer = LeaseContext.current().orElseThrow();
		this.state.seen.add(outer);
		String inner = this.self.process(innerTarget);
		if (!LeaseContext.current().orElseThrow().equals(outer)) {
			throw new AssertionError("outer context not restored");
		}
		return inner;
	}

	@TargetLeased(target = "#target", actor = "usernamegen", ttl = "3s", maxLifetime = "1m")
	public String viaAsync(String target) throws Exception {
		return this.worker.leaseIdOnAnotherThread().get(5, TimeUnit.SECONDS);
	}

	@TargetLeased(target = "#target", actor = "usernamegen", ttl = "3s", maxLifetime = "1m")
	public String viaReactor(String target) {
		return Mono.fromCallable(() -> LeaseContext.current().map(LeaseContext::leaseId).orElse("none") + "@"
				+ Thread.currentThread().getName())
			.subscribeOn(Schedulers.boundedElastic())
			.block();
	}

	/** A job that restores an interrupt it caught before it returns, as a job should: it ends interrupted. */
	@TargetLeased(target = "#target", actor = "usernamegen", ttl = "3s", maxLifetime = "1m")
	public String endInterrupted(String target) {
		this.state.runs.incrementAndGet();
		LeaseContext context = LeaseContext.current().orElseThrow();
		this.state.seen.add(context);
		Thread.currentThread().interrupt();
		return context.leaseId();
	}

	@TargetLeased(target = "#target.toCharArray()", actor = "usernamegen")
	public String badTarget(String target) {
		this.state.runs.incrementAndGet();
		return "ran";
	}

	private void blockUntilProceedOrInterrupt() {
		try {
			if (!this.state.proceed.await(20, TimeUnit.SECONDS)) {
				throw new AssertionError("never interrupted");
			}
		}
		catch (InterruptedException ex) {
			this.state.interrupted = true;
		}
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(20, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
