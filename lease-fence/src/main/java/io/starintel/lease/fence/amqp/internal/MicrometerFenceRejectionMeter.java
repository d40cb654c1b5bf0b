package io.starintel.lease.fence.amqp.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import io.starintel.lease.fence.amqp.ConsumeRejection;

/** Counts consumer-guard rejections in {@value #COUNTER}, tagged {@code enforcement_point}, {@code reason}, {@code forged}. */
public final class MicrometerFenceRejectionMeter implements ConsumerRejectionRecorder.Meter {

	/** The counter's name. */
	public static final String COUNTER = "starintel.lease.fence.rejections";

	private final MeterRegistry registry;

	/** A meter on the given registry. */
	public MicrometerFenceRejectionMeter(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void rejected(String enforcementPoint, ConsumeRejection reason) {
		Counter.builder(COUNTER)
			.description("Fenced commits rejected at an enforcement point")
			.tag("enforcement_point", enforcementPoint)
			.tag("reason", reason.wireName())
			.tag("forged", Boolean.toString(reason.isForged()))
			.register(this.registry)
			.increment();
	}

}
