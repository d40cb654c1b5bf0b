package io.starintel.lease.sweep;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.core.ActivePrograms;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.service.LeaseService;

/**
 * Ends expired leases promptly (the seed's per-second expiration tick) in every program with leases: the configured
 * programs and, when discovery is on, every program the store reports ({@link LeaseService#activePrograms}: programs
 * used only over the worker API, for instance), re-read every {@value #DISCOVERY_TICKS} ticks.
 *
 * <p>Every {@code interval} a tick sweeps each program that is due: the configured ones every tick, a discovered one
 * when its earliest queued expiry has come ({@link SweepResult#nextDueAt()}) and at least every
 * {@value #IDLE_TICKS} ticks (a lease granted meanwhile with an earlier expiry is swept within that). A program is
 * swept with calls of {@link LeaseService#sweepExpired} while the store reports more due entries, at most
 * {@code maxBatchesPerTick} calls: the batch starts at {@code batchSize} leases and doubles while due entries remain
 * (up to {@value SweepRequest#MAX_BATCH}), so a backlog is worked off in few, larger atomic steps and a quiet program
 * costs one small call; what is left waits for the next tick, so a mass expiry is spread over ticks.
 *
 * <p>Several instances share the work: with a claimant (its service instance), each call claims the program for
 * three intervals ({@link SweepRequest#claimant()}), and a program another instance claims is skipped until its claim
 * may have lapsed (the store answers {@link SweepResult.Status#CLAIMED}). Whatever the sharing, the store ends each
 * lease in exactly one call.
 *
 * <p>Bounded and fail-closed: each call carries a deadline ({@code callTimeout} from its start) and the tick stops its
 * work for a program at the first failed call; a tick that overruns the interval delays the next one (fixed delay,
 * never overlapping). {@link #close()} never waits for a running call: the thread is a daemon and is interrupted, and
 * the call in flight ends at its deadline.
 */
public final class ExpirySweeper implements AutoCloseable {

	/** Ticks between two reads of the store's programs. */
	static final int DISCOVERY_TICKS = 10;

	/** Ticks a discovered program may go unswept at most. */
	static final int IDLE_TICKS = 10;

	/** Most programs read from the store. */
	static final int DISCOVERY_LIMIT = 10_000;

	private static final Logger logger = LoggerFactory.getLogger(ExpirySweeper.class);

	private final LeaseService service;

	private final List<ProgramScope> programs;

	private final boolean discover;

	private final @Nullable String claimant;

	private final Duration interval;

	private final Duration claimFor;

	private final int batchSize;

	private final int maxBatchesPerTick;

	private final Duration callTimeout;

	private final SweepObserver observer;

	private final Clock clock;

	private final AtomicBoolean stopped = new AtomicBoolean();

	/** The discovered programs (besides the configured ones), as of the last read. */
	private List<ProgramScope> discovered = List.of();

	/** When each program is next due (the clock's millis); a program without an entry is due now. Under tickLock. */
	private final Map<ProgramScope, Long> dueAt = new HashMap<>();

	private long ticks;

	/** Serializes ticks (a test's and the scheduler's), never taken by {@link #close()}. */
	private final Object tickLock = new Object();

	private volatile @Nullable ScheduledExecutorService executor;

	/**
	 * A builder of a sweeper over {@code service} (the one in the auto-configuration: its {@code LeaseService}, over
	 * the audited store, so that every swept lease gets its {@code target_lease_expire} event). Defaults: interval
	 * 1 s, batches from 100 leases, at most 100 calls per program and tick, 5 s per call, no discovery, no claims, no
	 * telemetry, the system clock.
	 */
	public static Builder builder(LeaseService service) {
		return new Builder(service);
	}

	private ExpirySweeper(Builder builder, SweepObserver observer) {
		this.service = builder.service;
		this.programs = List.copyOf(builder.programs);
		this.discover = builder.discover;
		this.claimant = builder.claimant;
		this.interval = Objects.requireNonNull(builder.interval, "interval");
		if (this.interval.isNegative() || this.interval.isZero()) {
			throw new IllegalArgumentException("interval must be positive");
		}
		if (builder.batchSize < 1 || builder.batchSize > SweepRequest.MAX_BATCH || builder.maxBatchesPerTick < 1) {
			throw new IllegalArgumentException("batch-size must be 1.." + SweepRequest.MAX_BATCH
					+ " and max-batches-per-tick positive");
		}
		if (this.claimant != null && !Identifiers.isValid(this.claimant)) {
			throw new IllegalArgumentException("the sweeper's claimant (the service instance id) must be 1..128 "
					+ "characters of [A-Za-z0-9._:@-]");
		}
		this.claimFor = this.interval.multipliedBy(3);
		this.batchSize = builder.batchSize;
		this.maxBatchesPerTick = builder.maxBatchesPerTick;
		this.callTimeout = Objects.requireNonNull(builder.callTimeout, "callTimeout");
		this.observer = observer;
		this.clock = Objects.requireNonNull(builder.clock, "clock");
	}

	/** Starts ticking on one daemon thread; idempotent; again after {@link #stop()}, never after {@link #close()}. */
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

	/**
	 * Stops ticking without waiting for a call in flight (it ends at its own deadline); {@link #start()} starts again
	 * (a stopped application context that is started again).
	 */
	public synchronized void stop() {
		ScheduledExecutorService scheduler = this.executor;
		this.executor = null;
		if (scheduler != null) {
			scheduler.shutdownNow();
		}
	}

	/** Stops ticking for good, without waiting for a call in flight (it ends at its own deadline). */
	@Override
	public synchronized void close() {
		this.stopped.set(true);
		stop();
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

	/** Runs one tick now: every program that is due (the scheduled work; also for tests and benchmarks). */
	public void tick() {
		synchronized (this.tickLock) {
			tickNow();
		}
	}

	private void tickNow() {
		if (this.discover && this.ticks % DISCOVERY_TICKS == 0) {
			discover();
		}
		this.ticks++;
		Set<ProgramScope> all = new LinkedHashSet<>(this.programs);
		all.addAll(this.discovered);
		long now = this.clock.millis();
		for (ProgramScope scope : all) {
			if (this.stopped.get() || Thread.currentThread().isInterrupted()) {
				return;
			}
			Long due = this.dueAt.get(scope);
			if (due != null && due > now) {
				continue;
			}
			SweepObserver.Tick tick = sweep(scope);
			if (tick != null) {
				this.observer.tick(scope, tick);
			}
		}
		this.dueAt.keySet().retainAll(all);
	}

	/** The programs swept besides the configured ones (as of the last read of the store's programs). */
	public List<ProgramScope> discoveredPrograms() {
		return this.discovered;
	}

	private void discover() {
		ActivePrograms active = this.service.activePrograms(DISCOVERY_LIMIT);
		if (active.status() == ActivePrograms.Status.LISTED) {
			List<ProgramScope> found = new ArrayList<>(active.programs());
			found.removeAll(this.programs);
			this.discovered = List.copyOf(found);
			if (active.total() > active.programs().size()) {
				logger.warn("The lease store reports {} programs with leases; the sweeper sweeps the {} most recently "
						+ "active", active.total(), active.programs().size());
			}
		}
		// otherwise keep the last list: a failed read must not stop the sweeping of known programs
	}

	/** Sweeps one program; null when another instance holds its claim (nothing to report). */
	private SweepObserver.@Nullable Tick sweep(ProgramScope scope) {
		long start = System.nanoTime();
		int calls = 0;
		int batch = this.batchSize;
		long scanned = 0;
		long expired = 0;
		long attached = 0;
		long active = -1;
		boolean more = false;
		SweepResult last = null;
		SweepResult.Status status = SweepResult.Status.SWEPT;
		while (calls < this.maxBatchesPerTick && !this.stopped.get()) {
			Instant deadline = this.clock.instant().plus(this.callTimeout);
			// the service answers a store that throws with backend_unavailable
			SweepResult result = this.service
				.sweepExpired(new SweepRequest(scope, batch, deadline, this.claimant, this.claimFor));
			calls++;
			status = result.status();
			if (status == SweepResult.Status.CLAIMED) {
				this.dueAt.put(scope, this.clock.millis() + this.claimFor.toMillis());
				return (calls == 1) ? null
						: new SweepObserver.Tick(calls - 1, scanned, expired, attached, active,
								System.nanoTime() - start, SweepResult.Status.SWEPT, false);
			}
			if (!result.isSwept()) {
				more = false;
				break;
			}
			last = result;
			scanned += result.scanned();
			expired += result.expired().size();
			attached += result.attachedKeysDeleted();
			active = result.activeLeases();
			more = result.more();
			if (!more) {
				break;
			}
			batch = Math.min(SweepRequest.MAX_BATCH, batch * 2);
		}
		schedule(scope, last, more);
		return new SweepObserver.Tick(calls, scanned, expired, attached, active, System.nanoTime() - start, status,
				more);
	}

	/**
	 * When the program is next due: the next tick for a configured program, a backlog or a failed call; otherwise
	 * its earliest queued expiry (converted from backend time), but at least every {@value #IDLE_TICKS} ticks.
	 */
	private void schedule(ProgramScope scope, @Nullable SweepResult last, boolean more) {
		if (this.programs.contains(scope) || more || last == null || last.decidedAt() == null) {
			this.dueAt.remove(scope);
			return;
		}
		long now = this.clock.millis();
		long idle = now + this.interval.toMillis() * IDLE_TICKS;
		Instant nextDue = last.nextDueAt();
		long next = idle;
		if (nextDue != null) {
			long untilDue = Duration.between(last.decidedAt(), nextDue).toMillis();
			next = Math.min(idle, now + Math.max(0, untilDue));
		}
		this.dueAt.put(scope, next);
	}

	/** Builds an {@link ExpirySweeper}. */
	public static final class Builder {

		private final LeaseService service;

		private List<ProgramScope> programs = List.of();

		private boolean discover;

		private @Nullable String claimant;

		private Duration interval = Duration.ofSeconds(1);

		private int batchSize = 100;

		private int maxBatchesPerTick = 100;

		private Duration callTimeout = Duration.ofSeconds(5);

		private SweepObserver observer = SweepObserver.NONE;

		private @Nullable MeterRegistry meters;

		private Clock clock = Clock.systemUTC();

		private Builder(LeaseService service) {
			this.service = Objects.requireNonNull(service, "service");
		}

		/** The programs swept on every tick. */
		public Builder programs(List<ProgramScope> programs) {
			this.programs = List.copyOf(programs);
			return this;
		}

		/** Whether to sweep, besides the configured programs, every program the store reports leases in. */
		public Builder discoverPrograms(boolean discover) {
			this.discover = discover;
			return this;
		}

		/**
		 * The name this instance claims programs under, so that instances share the programs (its service instance
		 * id); {@code null}: no claims, every instance sweeps every program.
		 */
		public Builder claimant(@Nullable String claimant) {
			this.claimant = claimant;
			return this;
		}

		/** Time between the end of one tick and the start of the next. */
		public Builder interval(Duration interval) {
			this.interval = interval;
			return this;
		}

		/** Leases of a program's first call in a tick, 1..{@value SweepRequest#MAX_BATCH}; doubled while due leases remain. */
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
			return new ExpirySweeper(this, observer);
		}

	}

}
