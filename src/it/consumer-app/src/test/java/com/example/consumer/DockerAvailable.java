package com.example.consumer;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;

/** Skips a Testcontainers suite, saying so in the build's output, when no Docker engine answers. */
class DockerAvailable implements ExecutionCondition {

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		if (DockerClientFactory.instance().isDockerAvailable()) {
			return ConditionEvaluationResult.enabled("a Docker engine answers");
		}
		String message = "SKIPPED " + context.getDisplayName()
				+ ": no Docker engine answers (Testcontainers found no valid Docker environment); "
				+ "the in-memory suite still runs";
		System.out.println(message);
		return ConditionEvaluationResult.disabled(message);
	}

}
