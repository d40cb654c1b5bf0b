package io.starintel.lease.it.redis;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.redis.RecoveryReport;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.test.FaultProxy;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Timeouts after submission and failures before it: a command whose reply is lost (a proxy forwards the request
 * and drops the reply) is {@code lease_outcome_unknown}, and {@code resolve(request_id)} then returns the committed
 * result; a server that cannot be reached is {@code lease_backend_unavailable}. No Redis exception escapes.
 */
class RedisOutcomeUnknownTests extends SharedRedisTests {

	private static LockIdentity identity() {
		return LockIdentity.of("tenant-unknown", "p-" + UUID.randomUUID().toString().substring(0, 8),
				"starintel-target", "target-1", "usernamegen", "default", null);
	}

	private static AcquireRequest acquireRequest(LockIdentity identity, Instant deadline) {
		return new AcquireRequest(identity, Identifiers.generate("request"), deadline,
				new LeaseOwner("prn_a", "client_1", "key_1", "instance_a"), 60_000, 300_000, "execution_1", "job_1",
				"trace_1", LeaseMetadata.empty());
	}

	@Test
	void lostRepliesAreOutcomeUnknownAndResolveReturnsTheCommittedResults() throws Exception {
		URI uri = server.uri();
		RedisLeaseStore directStore = RedisServers.store(factory);
		LockIdentity identity = identity();
		try (FaultProxy proxy = new FaultProxy(new InetSocketAddress(uri.getHost(), uri.getPort()))) {
			LettuceConnectionFactory proxied = RedisServers.factory("127.0.0.1", proxy.port());
			try {
				// one connection (a new connection's handshake would be dropped too: while replies are dropped, a call
				// on a new connection is lease_backend_unavailable, nothing sent)
				RedisLeaseStore store = RedisLeaseStore.builder(proxied).policy(RedisServers.POLICY).connections(1)
					.build();
				assertThat(store.inspect(InspectRequest.byIdentity(identity, "c", Instant.now().plusSeconds(5))).code())
					.as("the proxy forwards while not dropping").isEqualTo(ResultCode.LEASE_NOT_FOUND);
				// the scripts must be cached first: on a fresh server the lost reply would be EVALSHA's NOSCRIPT, and
				// the command would never have run
				LeaseResult warmUp = store.acquire(acquireRequest(identity(), Instant.now().plusSeconds(5)));
				assertThat(warmUp.code()).as("warm-up acquire (caches the script)")
					.isEqualTo(ResultCode.LEASE_ACQUIRED);
				assertThat(store.release(new ReleaseRequest(warmUp.lease().handle(), Identifiers.generate("request"),
						Instant.now().plusSeconds(5))).code()).as("warm-up release (caches the script)")
					.isEqualTo(ResultCode.LEASE_RELEASED);
				proxy.dropReplies(true);

				long sentBefore = proxy.forwardedRequestBytes();
				long droppedBefore = proxy.droppedReplyBytes();
				AcquireRequest acquire = acquireRequest(identity, Instant.now().plusMillis(700));
				long started = System.nanoTime();
				LeaseResult unknown = store.acquire(acquire);
				assertThat(unknown.code()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
				assertThat(unknown.reason()).isEqualTo(Reason.REPLY_LOST);
				assertThat(unknown.lease()).isNull();
				assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(7));
				assertThat(proxy.forwardedRequestBytes()).as("the request was submitted").isGreaterThan(sentBefore);
				awaitExecuted(proxy, droppedBefore);

				LeaseResult resolved = directStore.resolve(ResolveRequest.of(acquire, Instant.now().plusSeconds(5)));
				assertThat(resolved.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
				assertThat(resolved.replayed()).isTrue();
				assertThat(resolved.currentState()).isEqualTo(LeaseState.ACTIVE);
				AcquireRequest retry = new AcquireRequest(identity, acquire.requestId(), Instant.now().plusSeconds(5),
						acquire.owner(), acquire.ttlMs(), acquire.maximumLifetimeMs(), acquire.executionId(),
						acquire.jobId(), acquire.traceId(), acquire.metadata());
				LeaseResult retried = directStore.acquire(retry);
				assertThat(retried.replayed()).isTrue();
				assertThat(retried.lease().leaseId()).isEqualTo(resolved.lease().leaseId());
				assertThat(retried.lease().fencingToken()).isEqualTo(resolved.lease().fencingToken());

				// replies flow again, the connection was never cut: the same store answers at once. The connection
				// that lost a reply was retired (on it, every later command would get the reply before its own)
				proxy.dropReplies(false);
				LeaseResult resolvedThroughProxy = store.resolve(ResolveRequest.of(acquire, Instant.now().plusSeconds(5)));
				assertThat(resolvedThroughProxy.code()).as("resolve on the store that lost the reply")
					.isEqualTo(ResultCode.LEASE_ACQUIRED);
				assertThat(resolvedThroughProxy.lease().fencingToken()).isEqualTo(resolved.lease().fencingToken());
				assertThat(store.inspect(InspectRequest.byIdentity(identity, "c", Instant.now().plusSeconds(5)))
					.lease()
					.leaseId()).isEqualTo(resolved.lease().leaseId());
				proxy.dropReplies(true);

				ReleaseRequest release = new ReleaseRequest(resolved.lease().handle(), Identifiers.generate("request"),
						Instant.now().plusMillis(700));
				long releaseDroppedBefore = proxy.droppedReplyBytes();
				assertThat(store.release(release).code()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
				awaitExecuted(proxy, releaseDroppedBefore);
				LeaseResult releaseResolved = directStore
					.resolve(ResolveRequest.of(release, Instant.now().plusSeconds(5)));
				assertThat(releaseResolved.code()).isEqualTo(ResultCode.LEASE_RELEASED);
				assertThat(releaseResolved.currentState()).isEqualTo(LeaseState.RELEASED);

				assertThat(store.inspect(InspectRequest.byIdentity(identity, "c", Instant.now().plusMillis(500))).code())
					.as("a lost read reply is a backend failure, not an answer")
					.isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
			}
			finally {
				proxied.destroy();
			}
		}
	}

	/**
	 * One reply lost on a connection that stays open, and the next call sent on it: Lettuce hands that call's reply to
	 * the call whose reply was lost. Two fresh acquires of two identities: without the call's echo, the first one
	 * read the second one's grant as its own ({@code lease_acquired} with the other identity's token); with it, the
	 * first is {@code lease_outcome_unknown} ({@code reply_lost}), the connection is retired, and resolving by request
	 * id reports what each call did.
	 */
	@Test
	void aReplyThatAnswersAnotherCallIsNeverReadAsThisCallsResult() throws Exception {
		URI uri = server.uri();
		RedisLeaseStore directStore = RedisServers.store(factory);
		LockIdentity first = identity();
		LockIdentity second = identity();
		try (FaultProxy proxy = new FaultProxy(new InetSocketAddress(uri.getHost(), uri.getPort()))) {
			LettuceConnectionFactory proxied = RedisServers.factory("127.0.0.1", proxy.port());
			try {
				RedisLeaseStore store = RedisLeaseStore.builder(proxied).policy(RedisServers.POLICY).connections(1)
					.build();
				LeaseResult warmUp = store.acquire(acquireRequest(identity(), Instant.now().plusSeconds(5)));
				assertThat(warmUp.code()).as("warm-up acquire (loads the library)")
					.isEqualTo(ResultCode.LEASE_ACQUIRED);
				proxy.dropReplies(true);
				long droppedBefore = proxy.droppedReplyBytes();
				AcquireRequest lost = acquireRequest(first, Instant.now().plusSeconds(20));
				java.util.concurrent.CompletableFuture<LeaseResult> lostCall = java.util.concurrent.CompletableFuture
					.supplyAsync(() -> store.acquire(lost));
				awaitExecuted(proxy, droppedBefore);
				proxy.dropReplies(false);
				AcquireRequest next = acquireRequest(second, Instant.now().plusSeconds(3));
				LeaseResult nextResult = store.acquire(next);
				LeaseResult lostResult = lostCall.get(30, java.util.concurrent.TimeUnit.SECONDS);

				LeaseResult firstResolved = directStore.resolve(ResolveRequest.of(lost, Instant.now().plusSeconds(5)));
				LeaseResult secondResolved = directStore.resolve(ResolveRequest.of(next, Instant.now().plusSeconds(5)));
				assertThat(firstResolved.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
				assertThat(secondResolved.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
				assertThat(lostResult.code())
					.as("the call whose reply was lost, handed the next call's reply (%s, token %s; its own grant: "
							+ "token %s)", lostResult.code(),
							(lostResult.lease() != null) ? lostResult.lease().fencingToken() : null,
							firstResolved.lease().fencingToken())
					.isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
				assertThat(lostResult.reason()).isEqualTo(Reason.REPLY_LOST);
				assertThat(nextResult.code()).as("the call whose reply went to the other one")
					.isIn(ResultCode.LEASE_OUTCOME_UNKNOWN, ResultCode.LEASE_BACKEND_UNAVAILABLE);
				// the connection was retired: the same store answers again at once, with each call's own result
				LeaseResult resolvedThroughProxy = store.resolve(ResolveRequest.of(lost, Instant.now().plusSeconds(5)));
				assertThat(resolvedThroughProxy.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
				assertThat(resolvedThroughProxy.lease().fencingToken()).isEqualTo(firstResolved.lease().fencingToken());
				assertThat(resolvedThroughProxy.lease().identity()).isEqualTo(first);
			}
			finally {
				proxied.destroy();
			}
		}
	}

	/**
	 * Waits until the server has answered the command whose reply the proxy dropped, so that resolving on another
	 * connection cannot overtake the lost command on a loaded machine.
	 */
	private static void awaitExecuted(FaultProxy proxy, long droppedBefore) {
		await("the server answered the command whose reply was dropped").atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> proxy.droppedReplyBytes() > droppedBefore);
	}

	@Test
	void resolveOfARequestThatNeverCommittedIsNotFound() {
		RedisLeaseStore store = RedisServers.store(factory);
		AcquireRequest never = acquireRequest(identity(), Instant.now().plusSeconds(5));
		assertThat(store.resolve(ResolveRequest.of(never, Instant.now().plusSeconds(5))).code())
			.isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	@Test
	void unreachableServerIsBackendUnavailableBeforeSubmission() throws Exception {
		LettuceConnectionFactory nowhere = RedisServers.factory("127.0.0.1", RedisProcess.freePort());
		try {
			LeaseResult result = RedisServers.store(nowhere).acquire(acquireRequest(identity(),
					Instant.now().plusSeconds(5)));
			assertThat(result.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
			assertThat(result.reason()).isEqualTo(Reason.BACKEND_UNREACHABLE);
			assertThat(result.decidedAt()).isNull();
			// a recovery of every node that reached none is not complete (the admin endpoint answers 503, not 200)
			RecoveryReport report = RedisServers.store(nowhere).recoverPromotedPrograms(null, "prn_operator",
					"key_operator", "drill", Instant.now().plusSeconds(3));
			assertThat(report.nodes()).as(report.toString()).isZero();
			assertThat(report.complete()).as(report.toString()).isFalse();
		}
		finally {
			nowhere.destroy();
		}
	}

	/**
	 * A reply dropped on a client whose own command timeout ({@code spring.data.redis.timeout}) is shorter than the
	 * call's deadline: the driver ends the call first, and the connection is retired all the same (every later reply
	 * on it would answer the command before it), so once the proxy passes again the store answers at once.
	 */
	@Test
	void aReplyLostBeyondTheDriversCommandTimeoutRetiresTheConnectionToo() throws Exception {
		URI uri = server.uri();
		try (FaultProxy proxy = new FaultProxy(new InetSocketAddress(uri.getHost(), uri.getPort()))) {
			LettuceConnectionFactory proxied = new LettuceConnectionFactory(
					new org.springframework.data.redis.connection.RedisStandaloneConfiguration("127.0.0.1",
							proxy.port()),
					org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.builder()
						.commandTimeout(Duration.ofMillis(500))
						.build());
			proxied.afterPropertiesSet();
			proxied.start();
			try {
				RedisLeaseStore store = RedisLeaseStore.builder(proxied).policy(RedisServers.POLICY).connections(1)
					.build();
				LockIdentity identity = identity();
				assertThat(store.inspect(InspectRequest.byIdentity(identity, "c", Instant.now().plusSeconds(5))).code())
					.isEqualTo(ResultCode.LEASE_NOT_FOUND);
				proxy.dropReplies(true);
				long droppedBefore = proxy.droppedReplyBytes();
				AcquireRequest acquire = acquireRequest(identity, Instant.now().plusSeconds(3));
				assertThat(store.acquire(acquire).code()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
				awaitExecuted(proxy, droppedBefore);
				proxy.dropReplies(false);
				LeaseResult resolved = store.resolve(ResolveRequest.of(acquire, Instant.now().plusSeconds(3)));
				assertThat(resolved.code()).as("resolve on the same store once replies flow again: %s", resolved)
					.isEqualTo(ResultCode.LEASE_ACQUIRED);
			}
			finally {
				proxied.destroy();
			}
		}
	}

}
