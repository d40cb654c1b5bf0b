package io.starintel.lease.store.redis;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A store whose connections cannot be opened because the server refuses the credentials (real Redis, a user that
 * does not exist): calls answer {@code lease_backend_unavailable}, and one WARN says why, naming neither the user nor
 * the password (found by an outside probe: the only line was at DEBUG and named the wrapper,
 * {@code CompletionException}, so a wrong password was invisible at INFO).
 */
@ExtendWith(OutputCaptureExtension.class)
class ConnectionOpeningFailureTests {

	private static final String PASSWORD = "Wrong-Secret-Pw-42";

	private static final String USER = "starintel-no-such-user";

	// lease-test-support depends on this module, so its tests read the variable themselves (same name, same default)
	private static URI redisUri() {
		String url = System.getenv("STARINTEL_REDIS_URL");
		return URI.create((url == null || url.isBlank()) ? "redis://127.0.0.1:6379" : url);
	}

	@Test
	void refusedCredentialsAreBackendUnavailableAndOneWarningSaysSoWithoutTheSecret(CapturedOutput output) {
		URI uri = redisUri();
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(uri.getHost(),
				(uri.getPort() > 0) ? uri.getPort() : 6379);
		configuration.setUsername(USER);
		configuration.setPassword(RedisPassword.of(PASSWORD));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration);
		factory.afterPropertiesSet();
		try (RedisLeaseStore store = RedisLeaseStore.builder(factory)
			.replicaAcknowledgement(ReplicaAcknowledgement.none())
			.warmUp(false)
			.build()) {
			LeaseService service = new LeaseService(store, Clock.systemUTC(), Duration.ofSeconds(2), null, null);
			LockIdentity identity = LockIdentity.of("tenant-main", "program-a", "starintel-target", "target_1",
					"usernamegen", "default", "default");
			for (int i = 0; i < 2; i++) {
				LeaseResult result = service.acquire(AcquireRequest
					.builder(identity, new LeaseOwner("prn_test", "client_test", "key_test", "instance_test"))
					.ttl(Duration.ofSeconds(30))
					.maximumLifetime(Duration.ofMinutes(5))
					.build(service.newId(), service.deadline()));
				assertThat(result.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
				assertThat(result.reason()).isEqualTo(Reason.BACKEND_UNREACHABLE);
			}
		}
		finally {
			factory.destroy();
		}
		String warning = "WARN";
		assertThat(output.getOut()).contains("Opening a lease store connection failed")
			.contains("the server refused the credentials")
			.doesNotContain(PASSWORD)
			.doesNotContain(USER);
		assertThat(output.getOut().lines().filter((line) -> line.contains(warning)
				&& line.contains("Opening a lease store connection failed")))
			.as("one WARN for both calls")
			.hasSize(1);
	}

}
