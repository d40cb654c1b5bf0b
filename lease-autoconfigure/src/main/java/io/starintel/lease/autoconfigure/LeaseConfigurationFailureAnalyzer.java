package io.starintel.lease.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

import io.starintel.lease.core.LeaseConfigurationException;

/**
 * Turns a {@link LeaseConfigurationException} anywhere in a start-up failure (invalid {@code starintel.lease.*}
 * properties, misused {@code @TargetLeased} methods, invalid admin credentials) into one "APPLICATION FAILED TO
 * START" report: every problem on its own line, then the action. Ordered before Spring Boot's own binding analyzers
 * so that the report lists all problems, not the first bind error. Registered in {@code META-INF/spring.factories}.
 */
final class LeaseConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<LeaseConfigurationException>
		implements Ordered {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, LeaseConfigurationException cause) {
		StringBuilder description = new StringBuilder("StarIntel target leases are not configured correctly ("
				+ cause.problems().size() + ((cause.problems().size() == 1) ? " problem" : " problems") + "):\n");
		for (LeaseConfigurationException.Problem problem : cause.problems()) {
			description.append("\n    ").append(problem.where()).append(' ').append(problem.what());
		}
		return new FailureAnalysis(description.toString(), cause.action(), cause);
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
