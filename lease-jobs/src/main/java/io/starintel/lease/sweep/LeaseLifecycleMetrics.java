package io.starintel.lease.sweep;

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
final class LeaseLifecycleMetrics implements AuditSink {





	private final MeterRegistry registry;

	/** The counters of each program, by {@link Kind} ordinal: looked up without building a key per event. */
	private final Map<String, Counter[]> counters = new ConcurrentHashMap<>();

	/** What is counted: a counter name and, for revocations, the {@code operation} tag. */
	private enum Kind {

		GRANTED(LeaseMeters.GRANTED, null), RENEWED(LeaseMeters.RENEWED, null),
		RELEASED(LeaseMeters.RELEASED, null), REVOKED(LeaseMeters.REVOKED, "revoke"),
		FORCE_RELEASED(LeaseMeters.REVOKED, "force_release");

		private final String meter;

		private final @Nullable String operation;

		Kind(String meter, @Nullable String operation) {
			this.meter = meter;
			this.operation = operation;
		}

	}

	/** Counters in a registry. */
	LeaseLifecycleMetrics(MeterRegistry registry) {
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
			case ACQUIRE -> count(code == ResultCode.LEASE_ACQUIRED, Kind.GRANTED, program);
			case RENEW -> count(code == ResultCode.LEASE_RENEWED, Kind.RENEWED, program);
			case RELEASE -> count(code == ResultCode.LEASE_RELEASED, Kind.RELEASED, program);
			case REVOKE -> count(code == ResultCode.LEASE_REVOKED, Kind.REVOKED, program);
			case FORCE_RELEASE -> count(code == ResultCode.LEASE_RELEASED, Kind.FORCE_RELEASED, program);
			default -> {
			}
		}
	}

	private void count(boolean success, Kind kind, String program) {
		if (!success) {
			return;
		}
		Counter[] byKind = this.counters.computeIfAbsent(program, (key) -> new Counter[Kind.values().length]);
		Counter counter = byKind[kind.ordinal()];
		if (counter == null) {
			Counter.Builder builder = Counter.builder(kind.meter).tag("program", program);
			if (kind.operation != null) {
				builder.tag("operation", kind.operation);
			}
			counter = builder
				.description("Leases " + kind.meter.substring(kind.meter.lastIndexOf('.') + 1) + " (audited decisions)")
				.register(this.registry); // idempotent: a racing thread gets the same meter
			byKind[kind.ordinal()] = counter;
		}
		counter.increment();
	}

}
