package io.starintel.lease.testing.internal;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when a lease test runs on the in-memory store ({@link LeaseTestModes#decide}). */
public final class OnMemoryLeaseTestCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		LeaseTestModes.Decision decision = LeaseTestModes.decide(context.getEnvironment(), context.getBeanFactory());
		return decision.memory() ? ConditionOutcome.match("in-memory lease store: " + decision.why())
				: ConditionOutcome.noMatch("Redis lease store: " + decision.why());
	}

}
