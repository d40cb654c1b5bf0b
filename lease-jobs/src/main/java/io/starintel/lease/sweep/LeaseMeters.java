package io.starintel.lease.sweep;

import io.micrometer.core.instrument.MeterRegistry;

import io.starintel.lease.audit.AuditSink;

/**
 * The lease telemetry in Micrometer: the meter names, and the audit sink that counts each program's lease lifecycle
 * from the audit events (granted, renewed, released, revoked or force-released), tagged {@code program} only (never a
 * lock key, target or principal). The sweep's own meters come with {@link ExpirySweeper.Builder#meters}.
 */
public final class LeaseMeters {

	/** Counter of leases granted (acquired). */
	public static final String GRANTED = "starintel.lease.leases.granted";

	/** Counter of successful renewals. */
	public static final String RENEWED = "starintel.lease.leases.renewed";

	/** Counter of leases released by their holder. */
	public static final String RELEASED = "starintel.lease.leases.released";

	/** Counter of leases ended by an administrator (revoke and force-release, tagged {@code operation}). */
	public static final String REVOKED = "starintel.lease.leases.revoked";

	/**
	 * Counter of leases lost by leased jobs (renewal answered {@code lease_lost}, local expiry, backend unavailable
	 * until the safety margin), tagged {@code reason}; each was a job's cancellation.
	 */
	public static final String LOST = "starintel.lease.lost";

	/** Counter of leases ended as expired by the sweeper. */
	public static final String EXPIRED = "starintel.lease.leases.expired";

	/** Counter of attached keys deleted with swept leases. */
	public static final String ATTACHED_KEYS_DELETED = "starintel.lease.attached-keys.deleted";

	/** Gauge of the program's active leases, as of the last sweep call. */
	public static final String ACTIVE = "starintel.lease.leases.active";

	/** Timer of one program's part of a sweep tick. */
	public static final String SWEEP_DURATION = "starintel.lease.sweep.duration";

	/** Distribution of expiry-queue entries scanned per tick. */
	public static final String SCANNED = "starintel.lease.sweep.scanned";

	/** Distribution of leases expired per tick. */
	public static final String EXPIRED_PER_TICK = "starintel.lease.sweep.expired";

	/** Counter of ticks whose last call failed, tagged {@code status}. */
	public static final String SWEEP_FAILURES = "starintel.lease.sweep.failures";

	private LeaseMeters() {
	}

	/** The audit sink counting each program's lease lifecycle in {@code registry}. */
	public static AuditSink lifecycle(MeterRegistry registry) {
		return new LeaseLifecycleMetrics(registry);
	}

}
