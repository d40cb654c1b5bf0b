package io.starintel.lease.it.redis;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

import io.starintel.lease.test.TestServers;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips a whole {@code Valkey…Tests} class, visibly (reported as skipped, with the reason), when Valkey is not
 * there and {@code CI} is not {@code true}: its shared server does not answer, or its binary (which the restart and
 * cluster suites launch) is missing. Under {@code CI=true} the class runs and fails on what is missing, since CI
 * always has {@code ../shared/valkey}. Redis classes always run (a missing Redis fails, as before). With containers
 * ({@link TestServers}) the check is that the kind's shared container starts.
 */
final class ServerAvailableCondition implements ExecutionCondition {

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		RedisServerKind kind = context.getTestClass().map(RedisServerKind::of).orElse(RedisServerKind.REDIS);
		if (kind == RedisServerKind.REDIS || TestServers.ci()) {
			return ConditionEvaluationResult.enabled(kind + " runs");
		}
		if (TestServers.containers()) {
			try {
				kind.uri();
				return ConditionEvaluationResult.enabled(kind + " container is available");
			}
			catch (RuntimeException ex) {
				String reason = ex.getMessage() + "; CI=true makes this a failure";
				System.err.println("WARNING: skipping " + context.getDisplayName() + ": " + reason);
				return ConditionEvaluationResult.disabled(reason);
			}
		}
		List<String> missing = new ArrayList<>();
		URI uri = kind.uri();
		if (!RedisServers.answersPing(uri.getHost(), uri.getPort())) {
			missing.add("nothing answers at " + uri);
		}
		if (kind.serverBinary().isEmpty()) {
			missing.add("no valkey-server binary");
		}
		if (missing.isEmpty()) {
			return ConditionEvaluationResult.enabled(kind + " is available");
		}
		String reason = kind + " is not available (" + String.join(", ", missing)
				+ "): run scripts/services.sh with ../shared/valkey beside the project; CI=true makes this a failure";
		System.err.println("WARNING: skipping " + context.getDisplayName() + ": " + reason);
		return ConditionEvaluationResult.disabled(reason);
	}

}
