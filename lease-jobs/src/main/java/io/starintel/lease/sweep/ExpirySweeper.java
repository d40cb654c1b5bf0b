package io.starintel.lease.sweep;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.service.LeaseService;

/**
 * Ends expired leases promptly (the seed's per-second expiration tick): every {@code interval}, for each program,
 * up to {@code maxBatchesPerTick} calls of {@link LeaseService#sweepExpired} of at most {@code batchSize} leases each,
 * while the store reports more due entries. A backlog beyond the cap waits for the next tick, so a mass expiry is
 * spread over ticks instead of spiking the backend.
 *
 * <p>Bounded and fail-closed: each call carries a deadline ({@code callTimeout} from its start) and the tick
 * stops its work for a program at the first failed call; a tick that overruns the interval delays the next one
 * (fixed delay, never overlapping). Any number of sweepers (threads, JVMs) may run over the same programs: the store
 * ends each lease in exactly one call. {@link #close()} never waits for a running call: the thread is a daemon and is
 * interrupted, and the call in flight ends at its deadline.
 */
public final class ExpirySweeper implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(ExpirySweeper.class);

	private final LeaseService service;

	private final List<ProgramScope> programs;

	private final Duration interval;

	private final int batchSize;

	private final int maxBatchesPerTick;

	private final Duration callTimeout;

	private final SweepObserver observer;

	private final Clock clock;

	private final AtomicBoolean stopped = new AtomicBoolean();

	private volatile ScheduledExecutorService executor;

	/**
	 * A builder of a sweeper over {@code service} (the one in the auto-configuration: its {@code LeaseService}, over
	 * the audited store, so that every swept lease gets its {@code target_lease_expire} event). Defaults: interval
	 * 1 s, batches of 50, at most 40 per program and tick, 5 s per call, no telemetry, the system clock.
	 */
	public static Builder builder(LeaseService service) {
		return new Builder(service);
	}

	/**
	 * A sweeper (not started).
	 * @param service the lease service (over the audited store, so that every swept lease gets its
	 * {@code target_lease_expire} event)
	 * @param programs the programs to sweep
	 * @param interval time between the end of one tick and the start of the next
	 * @param batchSize leases per call, 1..{@value SweepRequest#MAX_BATCH}
	 * @param maxBatchesPerTick most calls per program and tick
	 * @param callTimeout deadline of each call, from its start
	 * @param observer receives each program's tick (telemetry)
	 * @param clock server clock for the call deadlines
	 */
	ExpirySweeper(LeaseService service, List<ProgramScope> programs, Duration interval, int batchSize,
			int maxBatchesPerTick, Duration callTimeout, SweepObserver observer, Clock clock) {
		this.service = Objects.requireNonNull(service, "service");
		this.programs = List.copyOf(programs);
		this.interval = Objects.requireNonNull(interval, "interval");
		if (interval.isNegative() || interval.isZero()) {
			throw new IllegalArgumentException("interval must be positive");
		}
		if (batchSize < 1 || batchSize > SweepRequest.MAX_BATCH || maxBatchesPerTick < 1) {
			throw new IllegalArgumentException("batch-size must be 1.." + SweepRequest.MAX_BATCH
					+ " and max-batches-per-tick positive");
		}
		this.batchSize = batchSize;
		this.maxBatchesPerTick = maxBatchesPerTick;
		this.callTimeout = Objects.requireNonNull(callTimeout, "callTimeout");
		this.observer = Objects.requireNonNull(observer, "observer");
		this.clock = Objects.requireNonNull(clock, "clock");
	}

	/** Starts ticking on one daemon thread; idempotent. */
	public synchronized void start() {
		if (this.executor != null || this.stopped.get()) {
			return;
		}
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, (runnable) -> {
			Thread thread = new Thread(runnable, "starintel-lease-sweeper");
			thread.setDaemon(true);
			return thread;
		});
		scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
		scheduler.scheduleWithFixedDelay(this::tickSafely, this.interval.toMillis(), this.interval.toMillis(),
				TimeUnit.MILLISECONDS);
		this.executor = scheduler;
	}

	/** Whether the sweeper is ticking. */
	public boolean isRunning() {
		return this.executor != null && !this.stopped.get();
	}

	/** Stops ticking without waiting for a call in flight (it ends at its own deadline). */
	@Override
	public synchronized void close() {
		this.stopped.set(true);
		ScheduledExecutorService scheduler = this.executor;
		if (scheduler != null) {
			scheduler.shutdownNow();
		}
	}

	private void tickSafely() {
		try {
			tick();
		}
		catch (RuntimeException ex) {
			// a failed tick never stops the schedule; the type only (a message may hold backend detail)
			logger.warn("Lease expiry sweep failed ({}); retrying next tick", ex.getClass().getName());
		}
	}

	/** Runs one tick over every program now (the scheduled work; also for tests and benchmarks). */
	public void tick() {
		for (ProgramScope scope : this.programs) {
			if (this.stopped.get() || Thread.currentThread().isInterrupted()) {
				return;
			}
			this.observer.tick(scope, sweep(scope));
		}
	}

	private SweepObserver.Tick sweep(ProgramScope scope) {
		long start = System.nanoTime();
		int calls = 0;
		long scanned = 0;
		long expired = 0;
		long attached = 0;
		long active = -1;
		boolean more = false;
		SweepResult.Status status = SweepResult.Status.SWEPT;
		while (calls < this.maxBatchesPerTick && !this.stopped.get()) {
			Instant deadline = this.clock.instant().plus(this.callTimeout);
			// the service answers a store that throws with backend_unavailable
			SweepResult result = this.service.sweepExpired(new SweepRequest(scope, this.batchSize, deadline));
			calls++;
			status = result.status();
			if (!result.isSwept()) {
				more = false;
				break;
			}
			scanned += result.scanned();
			expired += result.expired().size();
			attached += result.attachedKeysDeleted();
			active = result.activeLeases();
			more = result.more();
			if (!more) {
				break;
			}
		}
		return new SweepObserver.Tick(calls, scanned, expired, attached, active, System.nanoTime() - start, status,
				more);
	}

	/** Builds an {@link ExpirySweeper}. */
	public static final class Builder {

		private final LeaseService service;

		private List<ProgramScope> programs = List.of();

		private Duration interval = Duration.ofSeconds(1);

		private int batchSize = 50;

		private int maxBatchesPerTick = 40;

		private Duration callTimeout = Duration.ofSeconds(5);

		private SweepObserver observer = SweepObserver.NONE;

		private @Nullable MeterRegistry meters;

		private Clock clock = Clock.systemUTC();

		private Builder(LeaseService service) {
			this.service = Objects.requireNonNull(service, "service");
		}

		/** The programs to sweep. */
		public Builder programs(List<ProgramScope> programs) {
			this.programs = List.copyOf(programs);
			return this;
		}

		/** Time between the end of one tick and the start of the next. */
		public Builder interval(Duration interval) {
			this.interval = interval;
			return this;
		}

		/** Leases per call, 1..{@value SweepRequest#MAX_BATCH}. */
		public Builder batchSize(int batchSize) {
			this.batchSize = batchSize;
			return this;
		}

		/** Most calls per program and tick; a larger backlog waits for the next tick. */
		public Builder maxBatchesPerTick(int maxBatchesPerTick) {
			this.maxBatchesPerTick = maxBatchesPerTick;
			return this;
		}

		/** Deadline of each call, from its start. */
		public Builder callTimeout(Duration callTimeout) {
			this.callTimeout = callTimeout;
			return this;
		}

		/** Receives each program's tick (telemetry). */
		public Builder observer(SweepObserver observer) {
			this.observer = observer;
			return this;
		}

		/**
		 * Records each tick in Micrometer ({@link LeaseMeters}: expired leases, deleted attached keys, the active-lease
		 * gauge per program, tick duration, scanned and expired per tick, failed ticks), besides any observer.
		 */
		public Builder meters(MeterRegistry meters) {
			this.meters = meters;
			return this;
		}

		/** Clock of the call deadlines. */
		public Builder clock(Clock clock) {
			this.clock = clock;
			return this;
		}

		/**
		 * The sweeper (not started).
		 * @throws IllegalArgumentException when the interval is not positive, the batch size outside
		 * 1..{@value SweepRequest#MAX_BATCH} or the batches per tick not positive
		 */
		public ExpirySweeper build() {
			SweepObserver observer = this.observer;
			if (this.meters != null) {
				SweepMetrics metrics = new SweepMetrics(this.meters);
				this.programs.forEach(metrics::register);
				SweepObserver also = this.observer;
				observer = (also == SweepObserver.NONE) ? metrics : (scope, tick) -> {
					metrics.tick(scope, tick);
					also.tick(scope, tick);
				};
			}
			return new ExpirySweeper(this.service, this.programs, this.interval, this.batchSize,
					this.maxBatchesPerTick, this.callTimeout, observer, this.clock);
		}

	}

}
