package io.starintel.lease.it.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Two builds of the function library on one server (a rolling upgrade, or a stale copy an older build left): the
 * library name carries a digest of its source, so a library of another build, even one that registers the very
 * function names an earlier build used, never answers this build's calls, and loading this build's library never
 * removes the other one (the processes of that build keep working until they are replaced).
 */
class RedisLibraryVersionTests extends SharedRedisTests {

	/** The name (and function names) builds before the source digest used. */
	private static final String STALE_LIBRARY = "starintel_lease_v2";

	private static final String STALE_BODY = "function(keys, args) return redis.error_reply('ERR stale build') end";

	private RedisClient client;

	private StatefulRedisConnection<String, String> connection;

	@BeforeEach
	void connect() {
		this.client = RedisClient.create(RedisURI.create(server.uri()));
		this.connection = this.client.connect();
	}

	@AfterEach
	void deleteStaleLibrary() {
		try {
			if (!this.connection.sync().functionList(STALE_LIBRARY).isEmpty()) {
				try (RedisConnection redis = factory.getConnection()) {
					redis.execute("FUNCTION", "DELETE".getBytes(StandardCharsets.US_ASCII),
							STALE_LIBRARY.getBytes(StandardCharsets.US_ASCII));
				}
			}
		}
		finally {
			this.connection.close();
			this.client.shutdown();
		}
	}

	@Test
	void aStaleLibraryOfAnotherBuildNeitherAnswersThisBuildNorIsReplacedByIt() {
		RedisCommands<String, String> commands = this.connection.sync();
		commands.functionLoad("#!lua name=" + STALE_LIBRARY + "\n"
				+ "redis.register_function('starintel_lease_v2_acquire', " + STALE_BODY + ")\n"
				+ "redis.register_function('starintel_lease_v2_release', " + STALE_BODY + ")\n", true);
		RedisLeaseStore store = new RedisLeaseStore(factory, RedisServers.POLICY, (alert) -> {
		});
		String program = "p-" + UUID.randomUUID().toString().substring(0, 8);
		LockIdentity identity = LockIdentity.of("tenant-lib", program, "starintel-target", "t-1", "usernamegen",
				"default", null);
		LeaseResult acquired = store.acquire(new AcquireRequest(identity, Identifiers.generate("request"),
				Instant.now().plusSeconds(5), new LeaseOwner("prn_lib", "client_lib", "cred_lib", "instance_lib"),
				30_000, 60_000, Identifiers.generate("execution"), Identifiers.generate("job"),
				Identifiers.generate("trace"), LeaseMetadata.empty()));
		assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		LeaseResult released = store.release(new ReleaseRequest(acquired.lease().handle(),
				Identifiers.generate("request"), Instant.now().plusSeconds(5)));
		assertThat(released.code()).isEqualTo(ResultCode.LEASE_RELEASED);
		// both builds' libraries are on the server; the stale one still answers its own (old) names
		assertThat(commands.functionList("starintel_lease_v3_*").toString()).containsPattern("starintel_lease_v3_[0-9a-f]{12}");
		assertThat(commands.functionList(STALE_LIBRARY)).hasSize(1);
		assertThatThrownBy(() -> commands.fcall("starintel_lease_v2_acquire", ScriptOutputType.STATUS, "k"))
			.hasMessageContaining("stale build");
	}

}
