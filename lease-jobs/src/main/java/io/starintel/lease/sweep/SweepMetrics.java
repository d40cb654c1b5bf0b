package io.starintel.lease.sweep;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.SweepResult;

/**
 * The sweeper's Micrometer meters, tagged {@code program} only (never a target or lock key): expired leases, attached
 * keys deleted, the active-lease gauge (the value the last sweep call read, so reading the gauge costs nothing),
 * sweep duration, leases scanned and expired per tick, and failed ticks (tagged {@code status} as well).
 */
final class SweepMetrics implements SweepObserver {








	private final MeterRegistry registry;

	private final Map<ProgramScope, Meters> meters = new ConcurrentHashMap<>();

	/** Meters in a registry. */
	SweepMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	/** Registers the meters of a program now (so the gauge exists before the first tick). */
	void register(ProgramScope scope) {
		meters(scope);
	}

	@Override
	public void tick(ProgramScope scope, Tick tick) {
		Meters m = meters(scope);
		m.duration.record(tick.durationNanos(), TimeUnit.NANOSECONDS);
		m.scanned.record(tick.scanned());
		m.expiredPerTick.record(tick.expired());
		m.expired.increment(tick.expired());
		m.attached.increment(tick.attachedKeysDeleted());
		if (tick.activeLeases() >= 0) {
			m.active.set(tick.activeLeases());
		}
		if (tick.lastStatus() != SweepResult.Status.SWEPT) {
			Counter.builder(LeaseMeters.SWEEP_FAILURES)
				.description("Sweeper ticks of a program that stopped at a failed call")
				.tag("program", scope.programId())
				.tag("status", tick.lastStatus().name().toLowerCase(java.util.Locale.ROOT))
				.register(this.registry)
				.increment();
		}
	}

	private Meters meters(ProgramScope scope) {
		return this.meters.computeIfAbsent(scope, (s) -> new Meters(this.registry, s.programId()));
	}

	private static final class Meters {

		final AtomicLong active = new AtomicLong();

		final Timer duration;

		final DistributionSummary scanned;

		final DistributionSummary expiredPerTick;

		final Counter expired;

		final Counter attached;

		Meters(MeterRegistry registry, String program) {
			Gauge.builder(LeaseMeters.ACTIVE, this.active, AtomicLong::get)
				.description("Active leases of the program, as of the last sweep call (refreshed every tick)")
				.tag("program", program)
				.register(registry);
			this.duration = Timer.builder(LeaseMeters.SWEEP_DURATION)
				.description("Time of one program's part of a sweeper tick")
				.tag("program", program)
				.register(registry);
			this.scanned = DistributionSummary.builder(LeaseMeters.SCANNED)
				.description("Expiry-queue entries examined per tick")
				.tag("program", program)
				.register(registry);
			this.expiredPerTick = DistributionSummary.builder(LeaseMeters.EXPIRED_PER_TICK)
				.description("Leases ended as expired per tick")
				.tag("program", program)
				.register(registry);
			this.expired = Counter.builder(LeaseMeters.EXPIRED)
				.description("Leases ended as expired by the sweeper")
				.tag("program", program)
				.register(registry);
			this.attached = Counter.builder(LeaseMeters.ATTACHED_KEYS_DELETED)
				.description("Attached keys deleted with swept leases")
				.tag("program", program)
				.register(registry);
		}

	}

}
