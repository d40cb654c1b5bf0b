package io.starintel.lease.autoconfigure.fence;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;

import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.fence.amqp.internal.MicrometerFenceRejectionMeter;

/**
 * Counts the commits refused at the publish, CouchDB and checkpoint enforcement points in the counter the consumer
 * guard counts in ({@value MicrometerFenceRejectionMeter#COUNTER}), with the same tag keys
 * ({@code enforcement_point}, {@code reason}, {@code forged}) so that the meter has one set of keys. The registry is
 * looked up at each rejection.
 */
final class FenceRejectionMetrics {

	/** The enforcement point of fenced publishes. */
	static final String PUBLISH = "amqp_publish";

	/** The enforcement point of fenced CouchDB writes. */
	static final String COUCHDB = "couchdb";

	/** The enforcement point of fenced checkpoint writes. */
	static final String CHECKPOINT = "checkpoint";

	private final ObjectProvider<MeterRegistry> registries;

	FenceRejectionMetrics(ObjectProvider<MeterRegistry> registries) {
		this.registries = registries;
	}

	/** The guard of one enforcement point: {@code guard}, counting its rejections. */
	FenceGuard guard(FenceGuard guard, String enforcementPoint) {
		return guard.withRejectionListener((decision) -> rejected(enforcementPoint, decision.outcome().wireName()));
	}

	/** Counts one rejection at {@code enforcementPoint} for {@code reason} (an outcome's wire name). */
	void rejected(String enforcementPoint, String reason) {
		MeterRegistry registry = this.registries.getIfAvailable();
		if (registry == null) {
			return;
		}
		Counter.builder(MicrometerFenceRejectionMeter.COUNTER)
			.description("Fenced commits rejected at an enforcement point")
			.tag("enforcement_point", enforcementPoint)
			.tag("reason", reason)
			.tag("forged", "false")
			.register(registry)
			.increment();
	}

}
