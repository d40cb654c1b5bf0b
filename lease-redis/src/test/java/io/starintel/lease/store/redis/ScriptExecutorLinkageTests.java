package io.starintel.lease.store.redis;

import java.time.Clock;
import java.time.Duration;

import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseAlerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * The store boundary against an incompatible driver (the Lettuce 7 {@code NoSuchMethodError} class of failure): a
 * {@link LinkageError} from the backend path becomes a typed {@code lease_backend_unavailable} (nothing sent) or
 * {@code lease_outcome_unknown} (possibly sent), never an {@link Error} reaching the caller, and is logged at ERROR
 * once. Unit level: the failure is injected through the connection factory (no server involved).
 */
@ExtendWith(OutputCaptureExtension.class)
class ScriptExecutorLinkageTests {

	private static final LockIdentity IDENTITY = LockIdentity.of("tenant-main", "program-a", "starintel-target",
			"target_1", "usernamegen", "default", "default");

	private static final LeaseOwner OWNER = new LeaseOwner("prn_test", "client_test", "key_test", "instance_test");

	private static LeaseResult acquire(RedisConnectionFactory factory) {
		LeasePolicy policy = new LeasePolicy(Duration.ofSeconds(1), Duration.ofMinutes(10), Duration.ofHours(24),
				Duration.ofMinutes(2), Duration.ofHours(1), 16, Duration.ofDays(7), 500, Duration.ofSeconds(30));
		LeaseService service = new LeaseService(store(factory, policy), Clock.systemUTC(), Duration.ofSeconds(5), null,
				null);
		return service.acquire(request(service));
	}

	private static AcquireRequest request(LeaseService service) {
		return AcquireRequest.builder(IDENTITY, OWNER)
			.ttl(Duration.ofSeconds(30))
			.maximumLifetime(Duration.ofMinutes(5))
			.build(service.newId(), service.deadline());
	}

	/** A single server (no replica wait, no background warm-up): the calls under test are the only driver calls. */
	private static RedisLeaseStore store(RedisConnectionFactory factory, LeasePolicy policy) {
		return RedisLeaseStore.builder(factory)
			.policy(policy)
			.alerts(LeaseAlerts.LOG)
			.replicaAcknowledgement(ReplicaAcknowledgement.none())
			.warmUp(false)
			.build();
	}

	@Test
	void whenConnectingThrowsNoSuchMethodErrorThenBackendUnavailableAndLoggedOnce(CapturedOutput output) {
		RedisConnectionFactory factory = mock(RedisConnectionFactory.class);
		given(factory.getConnection()).willThrow(new NoSuchMethodError(
				"'boolean io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands.isOpen()'"));
		assertThat(acquire(factory).code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(output.getOut()).contains("Lease backend driver is incompatible (NoSuchMethodError");
	}

	@Test
	@SuppressWarnings("unchecked")
	void whenSubmittingThrowsLinkageErrorThenOutcomeUnknownNeverAnError(CapturedOutput output) {
		RedisAsyncCommands<byte[], byte[]> commands = mock(RedisAsyncCommands.class);
		StatefulRedisConnection<byte[], byte[]> stateful = mock(StatefulRedisConnection.class);
		given(stateful.isOpen()).willReturn(true);
		given(commands.getStatefulConnection()).willReturn(stateful);
		given(commands.dispatch(any(ProtocolKeyword.class), any(CommandOutput.class), any(CommandArgs.class)))
			.willThrow(new LinkageError("incompatible class change"));
		given(commands.functionLoad(anyString())).willThrow(new LinkageError("incompatible class change"));
		LettuceConnection connection = mock(LettuceConnection.class);
		given(connection.getNativeConnection()).willReturn((RedisAsyncCommands) commands);
		RedisConnectionFactory factory = mock(RedisConnectionFactory.class);
		given(factory.getConnection()).willReturn(connection);
		RedisLeaseStore store = store(factory, new LeasePolicy(Duration.ofSeconds(1), Duration.ofMinutes(10),
				Duration.ofHours(24), Duration.ofMinutes(2), Duration.ofHours(1), 16, Duration.ofDays(7), 500,
				Duration.ofSeconds(30)));
		LeaseService service = new LeaseService(store, Clock.systemUTC(), Duration.ofSeconds(5), null, null);
		for (int i = 0; i < 2; i++) {
			LeaseResult result = service.acquire(request(service));
			assertThat(result.code()).isIn(ResultCode.LEASE_OUTCOME_UNKNOWN, ResultCode.LEASE_BACKEND_UNAVAILABLE);
			assertThat(result.isSuccess()).isFalse();
		}
		String line = "Lease backend driver is incompatible (LinkageError";
		assertThat(output.getOut().split(java.util.regex.Pattern.quote(line), -1)).hasSize(2);
	}

}
