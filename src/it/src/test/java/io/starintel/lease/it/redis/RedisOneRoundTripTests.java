package io.starintel.lease.it.redis;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.event.command.CommandFailedEvent;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.event.command.CommandSucceededEvent;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.redis.RedisLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exactly one round trip per operation: the store's client sends one {@code FCALL} per acquire, renew, renew batch,
 * release and inspect, and otherwise only housekeeping that is not per operation: the replica count ({@code INFO},
 * about once a second) and the library load (observed with a Lettuce command listener on the class's own client).
 * On a server with replicas a change's {@code WAIT} is pipelined behind its {@code FCALL}: still one round trip. This replaces the one-round-trip check of the removed {@code LeaseStoreBenchmark}
 * harness.
 */
class RedisOneRoundTripTests extends SharedRedisTests {

	private final Map<String, AtomicLong> sent = new ConcurrentHashMap<>();

	private RedisLeaseStore store;

	private String program;

	@BeforeEach
	void listen() {
		this.program = "p-" + UUID.randomUUID().toString().substring(0, 8);
		AbstractRedisClient client = factory.getNativeClient();
		assertThat(client).isNotNull();
		client.addListener(new CommandListener() {

			@Override
			public void commandStarted(CommandStartedEvent event) {
				String type = event.getCommand().getType().toString();
				if ("FCALL".equals(type)
						&& event.getCommand().getArgs().toCommandString().contains("_programs_touch ")) {
					// the program registry's report (at most once per program and 30 s, off the caller's thread)
					return;
				}
				RedisOneRoundTripTests.this.sent.computeIfAbsent(type, (name) -> new AtomicLong()).incrementAndGet();
			}

			@Override
			public void commandSucceeded(CommandSucceededEvent event) {
			}

			@Override
			public void commandFailed(CommandFailedEvent event) {
			}

		});
		// the store opens its own connections from the client: after the listener, so that it sees them
		this.store = RedisServers.store(factory);
		// loads the library when the server does not have it yet (FUNCTION LOAD is the one-off fallback)
		this.store.inspect(InspectRequest.byIdentity(identity("warm-up"), "c", Instant.now().plusSeconds(5)));
		this.sent.clear();
	}

	private LockIdentity identity(String target) {
		return LockIdentity.of("tenant-rt", this.program, "starintel-target", target, "usernamegen", "default", null);
	}

	private AcquireRequest acquireRequest(LockIdentity identity) {
		return new AcquireRequest(identity, Identifiers.generate("request"), Instant.now().plusSeconds(5),
				new LeaseOwner("prn_rt", "client_rt", "key_rt", "instance_rt"), 30_000, 300_000, "execution_1",
				"job_1", "trace_1", LeaseMetadata.empty());
	}

	@Test
	void everyOperationIsExactlyOneFunctionCall() {
		int cycles = 20;
		for (int i = 0; i < cycles; i++) {
			LockIdentity identity = identity("t" + i);
			LeaseResult acquired = this.store.acquire(acquireRequest(identity));
			assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
			LeaseRecord lease = acquired.lease();
			assertThat(this.store.acquire(acquireRequest(identity)).code()).isEqualTo(ResultCode.LEASE_CONFLICT);
			assertThat(this.store.renew(new RenewRequest(lease.handle(), Identifiers.generate("request"),
					Instant.now().plusSeconds(5))).code()).isEqualTo(ResultCode.LEASE_RENEWED);
			List<LeaseResult> batch = this.store.renewAll(List.of(new RenewRequest(lease.handle(),
					Identifiers.generate("request"), Instant.now().plusSeconds(5))));
			assertThat(batch).extracting(LeaseResult::code).containsExactly(ResultCode.LEASE_RENEWED);
			assertThat(this.store.inspect(InspectRequest.byIdentity(identity, "c", Instant.now().plusSeconds(5)))
				.code()).isEqualTo(ResultCode.LEASE_INSPECTED);
			assertThat(this.store.release(new ReleaseRequest(lease.handle(), Identifiers.generate("request"),
					Instant.now().plusSeconds(5))).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		}
		assertThat(this.sent.get("FCALL").get()).as("6 operations per cycle, one FCALL each").isEqualTo(6L * cycles);
		// besides: the replica wait pipelined behind each change (none here: a server without replicas needs none),
		// the replica count refreshed about once a second, and the library load ahead of a connection's first call
		assertThat(this.sent.keySet()).isSubsetOf("FCALL", "INFO", "FUNCTION");
		assertThat(this.sent.getOrDefault("INFO", new AtomicLong()).get()).as("replica count refreshed about once a second")
			.isLessThanOrEqualTo(5);
		assertThat(this.sent.getOrDefault("FUNCTION", new AtomicLong()).get()).isLessThanOrEqualTo(1);
	}

}
