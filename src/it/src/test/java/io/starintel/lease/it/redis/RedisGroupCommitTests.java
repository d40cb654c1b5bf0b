package io.starintel.lease.it.redis;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.event.command.CommandFailedEvent;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.event.command.CommandSucceededEvent;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.store.redis.internal.LeaseLibrary;
import io.starintel.lease.test.FaultProxy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Group commit per program (issue 32): concurrent calls of one program go out as batched function calls while one is
 * in flight, each with its own result; a call that is still queued when its deadline passes was never sent.
 */
class RedisGroupCommitTests extends SharedRedisTests {

	private static AcquireRequest acquire(LockIdentity identity, Instant deadline) {
		return new AcquireRequest(identity, Identifiers.generate("request"), deadline,
				new LeaseOwner("prn_gc", "client_gc", "key_gc", "instance_gc"), 30_000, 300_000,
				Identifiers.generate("execution"), "job_1", "trace_1", LeaseMetadata.empty());
	}

	private static LockIdentity identity(String program, String target) {
		return LockIdentity.of("tenant-gc", program, "starintel-target", target, "usernamegen", "default", null);
	}

	@Test
	void concurrentCallsOfOneProgramShareBatchedCallsAndEachGetsItsOwnResult() throws Exception {
		String program = "p-" + UUID.randomUUID().toString().substring(0, 8);
		ConcurrentHashMap<String, AtomicLong> functions = new ConcurrentHashMap<>();
		AbstractRedisClient client = factory.getNativeClient();
		client.addListener(new CommandListener() {

			@Override
			public void commandStarted(CommandStartedEvent event) {
				if ("FCALL".equals(event.getCommand().getType().toString())) {
					String args = event.getCommand().getArgs().toCommandString();
					functions.computeIfAbsent(args.substring(0, args.indexOf(' ')), (name) -> new AtomicLong())
						.incrementAndGet();
				}
			}

			@Override
			public void commandSucceeded(CommandSucceededEvent event) {
			}

			@Override
			public void commandFailed(CommandFailedEvent event) {
			}

		});
		RedisLeaseStore store = RedisServers.store(factory);
		// more callers than calls of a program in flight (GroupCommit.MAX_IN_FLIGHT, 8): the others queue and batch
		int threads = 24;
		int cycles = 40;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		CountDownLatch start = new CountDownLatch(1);
		try {
			List<Future<Integer>> done = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				done.add(pool.submit(() -> {
					start.await();
					int ok = 0;
					for (int i = 0; i < cycles; i++) {
						LeaseResult acquired = store.acquire(acquire(identity(program, "t" + thread + "-" + i),
								Instant.now().plusSeconds(10)));
						assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
						LeaseResult released = store.release(new ReleaseRequest(acquired.lease().handle(),
								Identifiers.generate("request"), Instant.now().plusSeconds(10)));
						assertThat(released.code()).isEqualTo(ResultCode.LEASE_RELEASED);
						assertThat(released.lease().leaseId()).isEqualTo(acquired.lease().leaseId());
						ok++;
					}
					return ok;
				}));
			}
			start.countDown();
			int total = 0;
			for (Future<Integer> future : done) {
				total += future.get(120, TimeUnit.SECONDS);
			}
			assertThat(total).isEqualTo(threads * cycles);
		}
		finally {
			pool.shutdownNow();
			store.close();
		}
		long batches = functions.getOrDefault(LeaseLibrary.Function.BATCH.functionName(), new AtomicLong()).get();
		long single = functions.getOrDefault(LeaseLibrary.Function.ACQUIRE.functionName(), new AtomicLong()).get()
				+ functions.getOrDefault(LeaseLibrary.Function.RELEASE.functionName(), new AtomicLong()).get();
		assertThat(batches).as("batched calls (%s)", functions).isPositive();
		assertThat(batches + single).as("calls for %d operations (%s)", 2 * threads * cycles, functions)
			.isLessThan(2L * threads * cycles);
	}

	@Test
	void eightCallsOfAProgramGoOutAtOncePipelinedOnOneConnectionAndACallStillQueuedAtItsDeadlineWasNeverSent()
			throws Exception {
		String program = "p-" + UUID.randomUUID().toString().substring(0, 8);
		URI uri = server.uri();
		try (FaultProxy proxy = new FaultProxy(new InetSocketAddress(uri.getHost(), uri.getPort()))) {
			LettuceConnectionFactory slow = RedisServers.factory("127.0.0.1", proxy.port());
			// the store's acquire calls as its client dispatches ("sent") and completes ("answered") them (a listener
			// only sees the connections opened after it was added)
			List<String> acquires = new CopyOnWriteArrayList<>();
			String function = LeaseLibrary.Function.ACQUIRE.functionName();
			slow.getNativeClient().addListener(new CommandListener() {

				@Override
				public void commandStarted(CommandStartedEvent event) {
					if (event.getCommand().getArgs().toCommandString().startsWith(function)) {
						acquires.add("sent");
					}
				}

				@Override
				public void commandSucceeded(CommandSucceededEvent event) {
					if (event.getCommand().getArgs().toCommandString().startsWith(function)) {
						acquires.add("answered");
					}
				}

			});
			// the store may open 8 connections (the default), but a call without a replica wait gives its connection
			// back once it is written: calls in flight are pipelined on the one the warm-up opened
			RedisLeaseStore store = RedisLeaseStore.builder(slow).policy(RedisServers.POLICY).build();
			// a thread per caller (the common pool may have fewer threads than there are calls blocked in flight)
			ExecutorService callers = Executors.newFixedThreadPool(8);
			try {
				assertThat(store.acquire(acquire(identity(program, "warm"), Instant.now().plusSeconds(5))).code())
					.isEqualTo(ResultCode.LEASE_ACQUIRED);
				// the warm-up's two events (its "answered" may follow its result), then only the calls below
				org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
					.until(() -> acquires.size() >= 2);
				acquires.clear();
				long connections = proxy.forwardedConnections();
				proxy.delay(Duration.ofMillis(600));
				// eight calls of the program go out one after the other, each before any is answered (eight calls of a
				// program in flight: GroupCommit.MAX_IN_FLIGHT; the replies take 1.2 s through the proxy's delay line)...
				List<CompletableFuture<LeaseResult>> inFlight = new ArrayList<>();
				for (int i = 1; i <= 8; i++) {
					String target = "in-flight-" + i;
					inFlight.add(CompletableFuture.supplyAsync(
							() -> store.acquire(acquire(identity(program, target), Instant.now().plusSeconds(10))),
							callers));
					int sent = i;
					org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
						.until(() -> acquires.stream().filter("sent"::equals).count() >= sent);
				}
				assertThat(acquires).as("eight acquires sent before any answer").hasSize(8).containsOnly("sent");
				// ...so this one queues behind them, and its deadline passes in the queue
				AcquireRequest queued = acquire(identity(program, "queued"), Instant.now().plusMillis(200));
				LeaseResult result = store.acquire(queued);
				assertThat(result.code()).isEqualTo(ResultCode.DEADLINE_EXCEEDED);
				for (CompletableFuture<LeaseResult> call : inFlight) {
					assertThat(call.get(20, TimeUnit.SECONDS).code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
				}
				// one connection served them all (with a connection held per call until its reply, eight would have
				// been opened); at most one more if a call borrowed while the one before it was still being written
				assertThat(proxy.forwardedConnections() - connections)
					.as("connections opened for eight calls in flight").isLessThanOrEqualTo(1);
				proxy.delay(Duration.ZERO);
				assertThat(store.resolve(ResolveRequest.of(queued, Instant.now().plusSeconds(5))).code())
					.as("nothing of the queued call reached the server").isEqualTo(ResultCode.LEASE_NOT_FOUND);
			}
			finally {
				callers.shutdownNow();
				store.close();
				slow.destroy();
			}
		}
	}

	/** Waits (bounded) until the proxy forwarded a request whose reply it is still holding. */
	private static void awaitInFlight(FaultProxy proxy) {
		long before = proxy.forwardedRequestBytes();
		org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
			.until(() -> proxy.forwardedRequestBytes() > before || proxy.heldBytes() > 0);
	}

}
