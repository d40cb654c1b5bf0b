package io.starintel.lease.sample;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ActiveProfiles;

import io.starintel.lease.testing.AutoConfigureLeaseTest;

/**
 * The third way of docs/testing.md: Docker Compose. Spring Boot starts {@code compose.yaml} (Valkey labelled for its
 * Redis service connection, RabbitMQ, CouchDB) and connects to each service by itself; CouchDB's details come from
 * lease-testing's Compose support, read as {@code starintel.lease.test.couchdb.url}. Needs Docker Compose v2
 * ({@code docker compose}); skipped, saying so, without it (Debian 12 packages only the old v1 {@code docker-compose},
 * which Spring Boot does not support).
 */
@ExtendWith(DockerComposeLeaseTests.ComposeAvailable.class)
@SpringBootTest(properties = { RealProfileLeaseScenarios.PROPERTIES, "sample.work-duration=2s",
		"starintel.lease.job.cancellation=none", "sample.couchdb-url=${starintel.lease.test.couchdb.url}",
		"spring.docker.compose.enabled=true", "spring.docker.compose.skip.in-tests=false",
		"spring.docker.compose.file=compose.yaml", "spring.docker.compose.lifecycle-management=start-and-stop" })
@ActiveProfiles("real")
@AutoConfigureLeaseTest
class DockerComposeLeaseTests extends RealProfileLeaseScenarios {

	/** Enabled when {@code docker compose version} answers. */
	static class ComposeAvailable implements ExecutionCondition {

		@Override
		public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
			try {
				Process process = new ProcessBuilder("docker", "compose", "version").redirectErrorStream(true).start();
				if (process.waitFor(20, TimeUnit.SECONDS) && process.exitValue() == 0) {
					return ConditionEvaluationResult.enabled("docker compose answers");
				}
				process.destroyForcibly();
			}
			catch (Exception ex) {
				// not installed
			}
			catch (Error ex) {
				throw ex;
			}
			String message = "SKIPPED " + context.getDisplayName() + ": Docker Compose v2 ('docker compose') does not "
					+ "answer; the in-memory and Testcontainers tests still run";
			System.out.println(message);
			return ConditionEvaluationResult.disabled(message);
		}

	}

}
