package io.starintel.lease.sweep.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.core.ResultCode;

/**
 * Counts lease grants, renewals, releases and revocations from the audit events of the one audited operations path
 * (a non-durable {@link AuditSink}: it sees exactly the decisions the audit trail records, off the caller's thread
 * when the non-blocking pipeline is in use), tagged {@code program} only; revocations are tagged {@code operation}
 * ({@code revoke} or {@code force_release}) as well. Expiries are counted by {@link SweepMetrics} from the sweeper's
 * own results. Replays of an idempotent retry are audited like first answers and therefore counted again.
 */
public final class LeaseLifecycleMetrics implements AuditSink {

	/** Counter of leases granted (acquired). */
	public static final String GRANTED = "starintel.lease.leases.granted";

	/** Counter of successful renewals. */
	public static final String RENEWED = "starintel.lease.leases.renewed";

	/** Counter of leases released by their holder. */
	public static final String RELEASED = "starintel.lease.leases.released";

	/** Counter of leases ended by an administrator (revoke and force-release). */
	public static final String REVOKED = "starintel.lease.leases.revoked";

	private final MeterRegistry registry;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	/** Counters in a registry. */
	public LeaseLifecycleMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void record(AuditEvent event) {
		String program = event.programId();
		if (program == null) {
			return;
		}
		ResultCode code = event.resultCode();
		switch (event.eventType()) {
			case ACQUIRE -> count(code == ResultCode.LEASE_ACQUIRED, GRANTED, program, null);
			case RENEW -> count(code == ResultCode.LEASE_RENEWED, RENEWED, program, null);
			case RELEASE -> count(code == ResultCode.LEASE_RELEASED, RELEASED, program, null);
			case REVOKE -> count(code == ResultCode.LEASE_REVOKED, REVOKED, program, "revoke");
			case FORCE_RELEASE -> count(code == ResultCode.LEASE_RELEASED, REVOKED, program, "force_release");
			default -> {
			}
		}
	}

	private void count(boolean success, String name, String program, @Nullable String operation) {
		if (!success) {
			return;
		}
		this.counters.computeIfAbsent(name + '\n' + program + '\n' + operation, (key) -> {
			Counter.Builder builder = Counter.builder(name).tag("program", program);
			if (operation != null) {
				builder.tag("operation", operation);
			}
			return builder.description("Leases " + name.substring(name.lastIndexOf('.') + 1) + " (audited decisions)")
				.register(this.registry);
		}).increment();
	}

}
