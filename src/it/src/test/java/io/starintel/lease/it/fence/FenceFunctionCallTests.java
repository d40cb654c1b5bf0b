package io.starintel.lease.it.fence;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.event.command.CommandFailedEvent;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.event.command.CommandSucceededEvent;
import org.aopalliance.intercept.MethodInvocation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.fence.amqp.FenceHeaders;
import io.starintel.lease.fence.amqp.internal.ConsumerRejectionRecorder;
import io.starintel.lease.fence.amqp.internal.FencedListenerAdvice;
import io.starintel.lease.fence.checkpoint.CheckpointReadStatus;
import io.starintel.lease.fence.checkpoint.CheckpointState;
import io.starintel.lease.fence.checkpoint.RedisCheckpointStore;
import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.store.redis.internal.LeaseLibrary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/**
 * The fence paths are functions of the lease function library: a checkpoint write, a checkpoint read and a consumer
 * check each send exactly one {@code FCALL} of {@code <library>_checkpoint}, {@code _checkpoint_read} and
 * {@code _consume}, and otherwise only per-node housekeeping (observed with a Lettuce command listener on the
 * fixture's own client, as RedisOneRoundTripTests does for the lease operations); a server that lost the library
 * answers "function not found", which loads it once ({@code FUNCTION LOAD}) before the call is sent again. On Redis, and on Valkey through
 * {@link ValkeyFenceFunctionCallTests}.
 */
class FenceFunctionCallTests {

	private final Map<String, AtomicLong> sent = new ConcurrentHashMap<>();

	private final List<String> functions = new CopyOnWriteArrayList<>();

	private FenceFixture fixture;

	private RedisCheckpointStore checkpoints;

	private FencedListenerAdvice advice;

	@BeforeEach
	void listen() {
		this.fixture = new FenceFixture(RedisServerKind.of(getClass()));
		this.checkpoints = new RedisCheckpointStore(this.fixture.redis);
		this.advice = new FencedListenerAdvice(this.fixture.redis,
				ProgramScope.of(this.fixture.tenant, this.fixture.program), true, new ConsumerRejectionRecorder());
		AbstractRedisClient client = this.fixture.factory.getNativeClient();
		assertThat(client).isNotNull();
		client.addListener(new CommandListener() {

			@Override
			public void commandStarted(CommandStartedEvent event) {
				String type = event.getCommand().getType().toString();
				String function = null;
				if ("FCALL".equals(type)) {
					String args = event.getCommand().getArgs().toCommandString();
					function = args.substring(0, args.indexOf(' '));
					if (function.endsWith("_programs_touch")) {
						// the program registry's report of the acquire, sent off the caller's thread: not a fence call
						return;
					}
					FenceFunctionCallTests.this.functions.add(function);
				}
				FenceFunctionCallTests.this.sent.computeIfAbsent(type, (name) -> new AtomicLong()).incrementAndGet();
			}

			@Override
			public void commandSucceeded(CommandSucceededEvent event) {
			}

			@Override
			public void commandFailed(CommandFailedEvent event) {
			}

		});
	}

	@AfterEach
	void close() {
		this.fixture.close();
	}

	@Test
	void checkpointWriteReadAndConsumeAreOneFunctionCallEach() throws Throwable {
		LeaseContext lease = this.fixture.acquire(this.fixture.identity("fcall"), "alice", 30_000);
		this.sent.clear();
		this.functions.clear();
		assertThat(this.checkpoints.write(lease, CheckpointState.IN_PROGRESS, "10%").isAccepted()).isTrue();
		assertThat(this.checkpoints.read(lease.identity()).status()).isEqualTo(CheckpointReadStatus.FOUND);
		MethodInvocation invocation = invocation(fenced(lease));
		this.advice.invoke(invocation);
		verify(invocation).proceed();
		assertThat(this.sent.get("FCALL").get()).isEqualTo(3);
		// besides the calls: housekeeping of each executor's first call on the node (the library load pipelined
		// ahead of it, the replica count a change's wait is sized by)
		assertThat(this.sent.keySet()).isSubsetOf("FCALL", "FUNCTION", "INFO");
		assertThat(this.functions).containsExactly(LeaseLibrary.NAME + "_checkpoint",
				LeaseLibrary.NAME + "_checkpoint_read", LeaseLibrary.NAME + "_consume");
	}

	@Test
	void aServerWithoutTheLibraryLoadsItOnFunctionNotFound() {
		LeaseContext lease = this.fixture.acquire(this.fixture.identity("fcall-reload"), "alice", 30_000);
		// the executor's first call loads the library ahead of it; after that it counts on the library being there
		assertThat(this.checkpoints.write(lease, CheckpointState.IN_PROGRESS, "10%").isAccepted()).isTrue();
		// only this build's library (its name carries the digest of its source): other builds keep theirs
		this.fixture.redis.execute((connection) -> connection.execute("FUNCTION",
				"DELETE".getBytes(), LeaseLibrary.NAME.getBytes()), true);
		this.sent.clear();
		this.functions.clear();
		assertThat(this.checkpoints.write(lease, CheckpointState.IN_PROGRESS, "20%").isAccepted()).isTrue();
		assertThat(this.sent.get("FCALL").get()).isEqualTo(2);
		assertThat(this.sent.get("FUNCTION").get()).isEqualTo(1);
		assertThat(this.functions).containsExactly(LeaseLibrary.NAME + "_checkpoint",
				LeaseLibrary.NAME + "_checkpoint");
	}

	private static Message fenced(LeaseContext lease) {
		MessageProperties properties = new MessageProperties();
		properties.setHeader(FenceHeaders.TOKEN, lease.fencingToken());
		properties.setHeader(FenceHeaders.LOCK_KEY_DIGEST, lease.identity().keyDigest());
		properties.setHeader(FenceHeaders.LEASE_ID, lease.leaseId());
		return new Message(new byte[0], properties);
	}

	private static MethodInvocation invocation(Message message) {
		MethodInvocation invocation = mock(MethodInvocation.class);
		when(invocation.getArguments()).thenReturn(new Object[] { message });
		return invocation;
	}

}
