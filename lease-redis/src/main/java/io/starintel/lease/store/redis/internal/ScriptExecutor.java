package io.starintel.lease.store.redis.internal;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolKeyword;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.starintel.lease.core.Reason;
import io.starintel.lease.store.redis.ReplicaAcknowledgement;

/**
 * Runs one function of the {@link LeaseLibrary} as one {@code FCALL} on a connection of the store's own to the primary
 * that serves the call's slot ({@link Router}), waiting for the reply no longer than the request's deadline, and
 * makes every state change durable before it reports it: right behind a call that changes state it pipelines
 * {@code WAIT n timeout} ({@code WAITAOF} for disk durability) on the same connection, with the timeout the call's
 * remaining time, and a success the required replicas did not acknowledge is {@code OUTCOME_UNKNOWN}
 * ({@code replicas_not_acknowledged}). A refusal changed nothing and is returned without waiting. An acknowledgement
 * counts only when the connection neither dropped nor reconnected between the change and the wait's answer
 * ({@link ConnectionDrops}): Lettuce sends an unanswered {@code WAIT} again after a reconnection, possibly to the node
 * promoted in place of the one that ran the change.
 *
 * <p>Contract: an acknowledged grant, renewal, release, revoke or commit authorization survives the promotion of a
 * replica; a command that could not be submitted (no connection, the deadline already passed, too few replicas
 * online, a node that refused it unrun: {@code MOVED}, {@code READONLY}, {@code CLUSTERDOWN}, {@code LOADING}) is
 * distinguished from one that may have run without a usable reply ({@link ScriptFailure.Kind#OUTCOME_UNKNOWN}); a
 * connection found on a node that is not a primary ({@code INFO} answers {@code role:slave}, or the node refuses with
 * {@code READONLY} or {@code MASTERDOWN}) is retired at once, the call that found it answered {@code NOT_SUBMITTED}
 * with reason {@code not_primary}, so that the next call opens a new connection (on Sentinel the client asks the
 * sentinels for the primary again) instead of every call failing on a connection the client left on a replica; no
 * Redis exception leaves this class, and neither does a {@link LinkageError} of an incompatible driver (logged at
 * ERROR once per executor, the call fails closed). The library is loaded on a node before the node's first call
 * (pipelined ahead of it) and again when the node answers "function not found" (a restart, flush or failover).
 */
public final class ScriptExecutor implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(ScriptExecutor.class);

	/** The default number of connections the store opens per deployment. */
	public static final int DEFAULT_CONNECTIONS = 8;

	/** How long after the call's deadline a replica wait's reply may still come before its connection is retired. */
	private static final long LATE_REPLY_GRACE_MS = 2_000;

	/** First reply elements of the answers that changed nothing: no replica wait is needed before returning them. */
	private static final Set<String> REFUSALS = Set.of("lease_conflict", "lease_lost", "deadline_exceeded",
			"invalid_lease_request", "idempotency_conflict", "lease_rate_limited", "lease_not_found",
			"lease_backend_unavailable", "recovery_required", "rejected", "corrupt",
			"forged_token_above_issued_counter", "forged_unknown_lease_id", "forged_lease_id_mismatch");

	/**
	 * Errors with which a node that is not a primary refuses a command without running it: a write on a replica, and
	 * anything on a replica whose link to its primary is down ({@code replica-serve-stale-data no}).
	 */
	private static final List<String> NOT_PRIMARY = List.of("READONLY", "MASTERDOWN");

	/** How often at most a connection found on a node that is not a primary is logged at WARN. */
	private static final long NOT_PRIMARY_LOG_MILLIS = 10_000;

	/** Errors with which a node refuses a command without running it: nothing was done. */
	private static final List<String> UNRUN = List.of("MOVED", "ASK", "CLUSTERDOWN", "LOADING", "TRYAGAIN",
			"NOREPLICAS", "BUSY", "NOPERM");

	private final Router router;

	private final ConnectionDrops drops = new ConnectionDrops();

	private final ReplicaAcknowledgement acknowledgement;

	private final @Nullable ExecutorService connector;

	private final AtomicBoolean incompatibleDriverLogged = new AtomicBoolean();

	private final AtomicLong notPrimaryLoggedAt = new AtomicLong();

	/** An executor on the factory's deployment, every change acknowledged by all replicas the primary reports. */
	public ScriptExecutor(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, ReplicaAcknowledgement.allReplicas(), DEFAULT_CONNECTIONS);
	}

	/**
	 * An executor on the factory's deployment. With Spring Data Redis's Lettuce factory (standalone, Sentinel or
	 * cluster) the store opens its own connections from the factory's client ({@code maxConnections} per
	 * deployment); otherwise it uses the factory's connection.
	 */
	public ScriptExecutor(RedisConnectionFactory connectionFactory, ReplicaAcknowledgement acknowledgement,
			int maxConnections) {
		this.acknowledgement = acknowledgement;
		AbstractRedisClient client = nativeClient(connectionFactory);
		this.drops.watch(client);
		if (client instanceof RedisClusterClient || client instanceof RedisClient) {
			LettuceConnectionFactory lettuce = (LettuceConnectionFactory) connectionFactory;
			ExecutorService connector = connector();
			this.connector = connector;
			// the factory's client now: a factory stopped and started again (a paused test context) has a new one
			this.router = new FollowingRouter(() -> nativeClient(lettuce), (current) -> {
				this.drops.watch(current);
				return (current instanceof RedisClusterClient cluster)
						? new ClusterRouter(cluster, connector, maxConnections)
						: new StandaloneRouter((RedisClient) current, lettuce.isRedisSentinelAware(), connector,
								maxConnections);
			}, lettuce::isRunning);
		}
		else {
			this.connector = null;
			this.router = new FactoryRouter(connectionFactory, this.drops);
		}
	}

	/** The thread that opens the store's connections (Lettuce's connect blocks). */
	private static ExecutorService connector() {
		return Executors.newSingleThreadExecutor((task) -> {
			Thread thread = new Thread(task, "starintel-lease-connect");
			thread.setDaemon(true);
			return thread;
		});
	}

	private static @Nullable AbstractRedisClient nativeClient(RedisConnectionFactory factory) {
		if (!(factory instanceof LettuceConnectionFactory lettuce)) {
			return null;
		}
		try {
			return lettuce.getNativeClient();
		}
		catch (RuntimeException ex) {
			return null; // not started yet: the factory's own connections are used
		}
	}

	/**
	 * Loads the library on every primary known now and learns their replicas, in the background (the first call
	 * then finds both done); a node that misses it loads it ahead of its first call.
	 */
	public void warmUp() {
		Thread thread = new Thread(() -> {
			try {
				warmUpNow();
			}
			catch (RuntimeException | LinkageError ex) {
				logger.debug("Lease library warm-up failed: {}", ex.getClass().getSimpleName());
			}
		}, "starintel-lease-warm-up");
		thread.setDaemon(true);
		thread.start();
	}

	private void warmUpNow() {
		{
			long deadline = System.currentTimeMillis() + 10_000;
			for (Route route : this.router.primaries(deadline).routes()) {
				try {
					RedisFuture<String> load = route.commands().functionLoad(LeaseLibrary.CODE);
					load.whenComplete((ok, failure) -> {
						if (failure == null || alreadyLoaded(failure)) {
							route.node().libraryLoaded();
						}
					});
					askReplicas(route.commands(), route.node()).whenComplete((replica, failure) -> {
						if (Boolean.TRUE.equals(replica)) {
							demoted(route, "at warm-up");
						}
						route.release().run();
					});
				}
				catch (RuntimeException | LinkageError ex) {
					route.release().run();
				}
			}
		}
	}

	/** Runs the function and returns its reply (a list of bulk strings). */
	public List<Object> run(LeaseLibrary.Function function, Instant deadlineAt, byte[][] keys, byte[][] args)
			throws ScriptFailure {
		boolean[] submitted = new boolean[1];
		try {
			return runChecked(function, deadlineAt.toEpochMilli(), keys, args, submitted);
		}
		catch (LinkageError ex) {
			// contract: no Error from the backend path reaches a user; fail closed with a typed failure
			if (this.incompatibleDriverLogged.compareAndSet(false, true)) {
				logger.error("Lease backend driver is incompatible ({}: {}); every lease operation fails closed until "
						+ "the Lettuce/Spring Data Redis versions match the ones this library supports",
						ex.getClass().getSimpleName(), ex.getMessage());
			}
			throw new ScriptFailure(submitted[0] ? ScriptFailure.Kind.OUTCOME_UNKNOWN : ScriptFailure.Kind.NOT_SUBMITTED,
					"incompatible driver");
		}
	}

	private List<Object> runChecked(LeaseLibrary.Function function, long deadlineMs, byte[][] keys, byte[][] args,
			boolean[] submitted) throws ScriptFailure {
		if (deadlineMs - System.currentTimeMillis() <= 0) {
			throw new ScriptFailure(ScriptFailure.Kind.DEADLINE_BEFORE_SUBMISSION, "deadline passed before submission");
		}
		Route route = this.router.route(keys[0], deadlineMs);
		for (int attempt = 0;; attempt++) {
			Attempt result = attempt(route, function, deadlineMs, keys, args, submitted);
			if (result.reply != null) {
				return result.reply;
			}
			// the call did not run: the library was missing (loaded again) or the slot moved; once more, in time
			if (attempt > 0 || deadlineMs - System.currentTimeMillis() <= 0) {
				throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "not run: " + result.retry);
			}
			route = (result.movedTo != null) ? this.router.moved(result.movedTo, deadlineMs)
					: this.router.route(keys[0], deadlineMs);
		}
	}

	/** The reply, or why the call did not run and may be sent once more. */
	private record Attempt(@Nullable List<Object> reply, String retry, @Nullable String movedTo) {
	}

	private Attempt attempt(Route route, LeaseLibrary.Function function, long deadlineMs, byte[][] keys,
			byte[][] args, boolean[] submitted) throws ScriptFailure {
		NodeState node = route.node();
		RedisClusterAsyncCommands<byte[], byte[]> commands = route.commands();
		RedisFuture<List<Object>> call;
		RedisFuture<?> wait = null;
		int required = -1; // -1: the replicas the change needs are not known (then a success is not acknowledged)
		long mark = 0;
		byte[] echo = ReplyEcho.next();
		try {
			boolean durable = function.changesState() && this.acknowledgement.waits();
			if (durable && !route.supportsWait()) {
				throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, Reason.REPLICAS_UNAVAILABLE,
						"replica acknowledgement needs a connection to the primary");
			}
			CompletableFuture<Boolean> asked = null;
			if (durable && node.claimRefresh(System.currentTimeMillis(), node.onlineReplicas() < 0)) {
				asked = askReplicas(commands, node);
			}
			boolean firstOnNode = durable && node.onlineReplicas() < 0;
			if (durable && !firstOnNode) {
				required = this.acknowledgement.required(node.onlineReplicas(), node.topologyHasReplicas());
				if (required > node.onlineReplicas()) {
					// the count may be stale (a replica attached since the last report, e.g. after a failover): ask
					// the node once more, inside the deadline, before refusing
					if (asked == null && node.claimRefresh(System.currentTimeMillis(), true)) {
						asked = askReplicas(commands, node);
					}
					required = requirementAfterRefresh(node, asked, deadlineMs);
					if (required < 0) {
						if (onReplica(commands, asked, node, deadlineMs)) {
							// not a primary without replicas: a replica (e.g. a former primary the connection stayed on)
							throw demoted(route, "its INFO says role:slave");
						}
						throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, Reason.REPLICAS_UNAVAILABLE,
								"fewer replicas online than required");
					}
				}
			}
			if (!node.isLibraryLoaded()) {
				RedisFuture<String> load = commands.functionLoad(LeaseLibrary.CODE);
				load.whenComplete((ok, failure) -> {
					if (failure == null || alreadyLoaded(failure)) {
						node.libraryLoaded();
					}
				});
			}
			mark = this.drops.mark();
			submitted[0] = true;
			call = commands.dispatch(CommandType.FCALL, new FlatReplyOutput(),
					new FcallArgs(function, keys, args, echo));
			if (firstOnNode) {
				// the node's first change: the wait is sized by the replica count that was asked for just ahead of
				// the call, and sent behind it on the same connection once that count is known
				required = requirementAfterRefresh(node, asked, deadlineMs);
			}
			if (durable && required > 0 || durable && required == 0 && this.acknowledgement.diskSync()) {
				long timeout = Math.max(1, deadlineMs - System.currentTimeMillis());
				wait = this.acknowledgement.diskSync() ? commands.dispatch(WaitAof.WAITAOF, new FlatReplyOutput(),
						new CommandArgs<>(ByteArrayCodec.INSTANCE).add(1).add(required).add(timeout))
						: commands.waitForReplication(required, timeout);
			}
			if (!durable) {
				required = 0;
			}
		}
		catch (RuntimeException ex) {
			// a driver that threw instead of answering: nothing is known beyond whether the call went out
			logger.debug("Lease function {} not dispatched: {}", function.functionName(), ex.getClass().getSimpleName());
			throw new ScriptFailure(submitted[0] ? ScriptFailure.Kind.OUTCOME_UNKNOWN : ScriptFailure.Kind.NOT_SUBMITTED,
					"dispatch failed");
		}
		finally {
			release(route, wait);
		}
		List<Object> reply;
		try {
			reply = await(call, deadlineMs, function);
		}
		catch (ScriptFailure ex) {
			if (ex.reason() == Reason.NOT_PRIMARY) {
				node.doubt();
				throw demoted(route, "it refused a call as a replica does");
			}
			if (replyNeverCame(call) && !Thread.currentThread().isInterrupted()) {
				retire(route, "the reply to a lease function did not come by the call's deadline");
			}
			throw ex;
		}
		catch (NotRun ex) {
			if (ex.functionMissing) {
				node.libraryLost();
			}
			return new Attempt(null, ex.getMessage(), ex.movedTo);
		}
		if (!ReplyEcho.strip(reply, echo)) {
			// another call's reply: this connection's replies no longer answer the calls they are paired with
			retire(route, "a lease function's reply answered another call (a reply was lost on the connection)");
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, Reason.REPLY_LOST,
					"the reply answered another call");
		}
		if (needsAcknowledgement(reply)) {
			if (required < 0) {
				throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, Reason.REPLICAS_NOT_ACKNOWLEDGED,
						"the node's replicas were not known in time");
			}
			if (wait != null) {
				try {
					awaitAcknowledgement(wait, required, deadlineMs, node);
				}
				catch (ScriptFailure ex) {
					retireIfStillUnanswered(route, wait);
					throw ex;
				}
				if (this.drops.changedSince(route.connection(), mark)) {
					// the wait may have been sent again after a reconnection, to another node than the one that ran
					// the change (see ConnectionDrops): its acknowledgement proves nothing about the change
					node.doubt();
					throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, Reason.REPLICAS_NOT_ACKNOWLEDGED,
							"the connection dropped or reconnected before the replicas acknowledged");
				}
			}
		}
		return new Attempt(reply, "", null);
	}

	/**
	 * Asks a primary, ahead of the next call on the same connection, for the replicas it reports online
	 * ({@code INFO replication}) and, a cluster primary, for its own view of the cluster ({@code CLUSTER NODES}, sent
	 * first, so answered first): whether the cluster has replicas at all is then the node's word too, not only the
	 * client's view, which Spring Boot's default client options load once and never refresh without a redirection (a
	 * view loaded before the replicas registered would let a primary whose replica is cut off acknowledge changes that
	 * no replica has).
	 * @return completed once the answers are recorded in the node's state (a failed ask leaves the count as it was),
	 * with {@code true} when the node answered that it is not a primary ({@code role:slave}: its count is not recorded)
	 */
	private static CompletableFuture<Boolean> askReplicas(RedisClusterAsyncCommands<byte[], byte[]> commands,
			NodeState node) {
		RedisFuture<String> view = node.asksClusterView() ? commands.clusterNodes() : null;
		RedisFuture<String> info = commands.info("replication");
		return info.toCompletableFuture().handle((text, failure) -> {
			String answered = (failure == null) ? text : null;
			node.refreshed(answered, answer(view), System.currentTimeMillis());
			return answered != null && !NodeState.isPrimary(answered);
		});
	}

	/**
	 * Whether the node the call's connection reached is not a primary, before a call is refused for want of replicas
	 * (a replica reports none; {@code replicas_unavailable} would then misname the fault): by the {@code INFO} this call
	 * sent ahead on the connection, or, when it sent none and the node's latest answer came from a replica, by one
	 * {@code INFO} now, inside the deadline. False when not known in time.
	 */
	private static boolean onReplica(RedisClusterAsyncCommands<byte[], byte[]> commands,
			@Nullable CompletableFuture<Boolean> asked, NodeState node, long deadlineMs) {
		if (asked != null) {
			return asked.isDone() && Boolean.TRUE.equals(asked.getNow(false));
		}
		if (!node.replicaAnswered()) {
			return false;
		}
		try {
			String info = commands.info("replication")
				.get(Math.max(1, deadlineMs - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
			return info != null && !NodeState.isPrimary(info);
		}
		catch (TimeoutException | ExecutionException | RuntimeException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * The connection of {@code route} reached a node that is not a primary: on standalone and Sentinel it is retired
	 * with every other connection of the store ({@link Route#demoted()}), so that the next call opens a new one
	 * through the client (on Sentinel, asking the sentinels for the primary again); on a cluster the client reads the
	 * topology again. Logged at WARN at most every
	 * {@value #NOT_PRIMARY_LOG_MILLIS} ms.
	 * @return the call's failure: nothing ran, reason {@code not_primary} (retryable)
	 */
	private ScriptFailure demoted(Route route, String how) {
		long now = System.currentTimeMillis();
		long last = this.notPrimaryLoggedAt.get();
		if (now - last >= NOT_PRIMARY_LOG_MILLIS && this.notPrimaryLoggedAt.compareAndSet(last, now)) {
			logger.warn("A lease store connection to {} reached a node that is not a primary ({}): the call is "
					+ "lease_backend_unavailable/not_primary, the store's connections there are retired and the next "
					+ "call connects again", route.node().name(), how);
		}
		else {
			logger.debug("Lease store connection on a node that is not a primary retired ({})", how);
		}
		route.demoted().run();
		return new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, Reason.NOT_PRIMARY,
				"the connection reached a node that is not a primary");
	}

	private static @Nullable String answer(@Nullable RedisFuture<String> reply) {
		if (reply == null) {
			return null;
		}
		CompletableFuture<String> answered = reply.toCompletableFuture();
		return (answered.isDone() && !answered.isCompletedExceptionally()) ? answered.getNow(null) : null;
	}

	/**
	 * The replica acknowledgements a change needs, once the node's replica count asked for just now (ahead of a
	 * node's first change, or when the known count fell short) is known; -1 when it is not known before the deadline
	 * or the node has fewer replicas than required (for a first change the call already went out: its success is then
	 * not acknowledged).
	 */
	private int requirementAfterRefresh(NodeState node, @Nullable CompletableFuture<?> asked, long deadlineMs) {
		try {
			awaitPlain((asked != null) ? asked : node.pending(), deadlineMs);
		}
		catch (ScriptFailure ex) {
			return -1;
		}
		if (node.onlineReplicas() < 0) {
			return -1;
		}
		int required = this.acknowledgement.required(node.onlineReplicas(), node.topologyHasReplicas());
		return (required > node.onlineReplicas()) ? -1 : required;
	}

	/**
	 * Gives the connection back: once the call's replica wait is answered ({@code WAIT} blocks the connection until
	 * then), or at once when the call sent none, so that the next call is pipelined behind this one on the same
	 * connection (the call, and the {@code INFO} or {@code FUNCTION LOAD} sent ahead of it, block nothing).
	 */
	/**
	 * Retires the connection a call went out on (closed, never lent again; the next call gets another one) once a
	 * reply on it did not come in time. A reply lost on an open connection (a proxy or middlebox dropping bytes) leaves
	 * the connection answering every later command with the reply to the command before it: without this the store
	 * would stay unusable (each call outcome-unknown at its deadline) until the connection dropped, and concurrent
	 * calls could be handed each other's replies. A slow server costs a reconnection. Calls still waiting on the
	 * connection fail (outcome unknown).
	 */
	private static void retire(Route route, String why) {
		logger.debug("Lease store connection retired: {}", why);
		route.retire().run();
	}

	/**
	 * A replica wait answers at its own timeout, which is the call's deadline, so its reply may be a moment late
	 * without having been lost: the connection is retired only when the reply has not come a grace period later.
	 */
	private static void retireIfStillUnanswered(Route route, RedisFuture<?> wait) {
		if (replyNeverCame(wait)) {
			CompletableFuture.delayedExecutor(LATE_REPLY_GRACE_MS, TimeUnit.MILLISECONDS).execute(() -> {
				if (replyNeverCame(wait)) {
					retire(route, "the reply to a replica wait did not come by the call's deadline");
				}
			});
		}
	}

	/**
	 * Whether no reply has come for the command: still unanswered, or ended by the driver's own command timeout
	 * ({@code spring.data.redis.timeout}, which may be shorter than the call's deadline), after which a reply lost on
	 * the way cannot be told from one still to come.
	 */
	private static boolean replyNeverCame(RedisFuture<?> command) {
		if (!command.isDone()) {
			return true;
		}
		try {
			command.get(0, TimeUnit.MILLISECONDS);
			return false;
		}
		catch (ExecutionException ex) {
			return ex.getCause() instanceof RedisCommandTimeoutException;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
		catch (TimeoutException | RuntimeException ex) {
			return false;
		}
	}

	private static void release(Route route, @Nullable CompletionStage<?> wait) {
		if (wait == null) {
			route.release().run();
		}
		else {
			wait.whenComplete((value, failure) -> route.release().run());
		}
	}

	/** Whether a reply reports a change (a success, or a replayed one): it must be acknowledged before it is used. */
	private static boolean needsAcknowledgement(List<Object> reply) {
		if (reply.isEmpty()) {
			return true;
		}
		Object first = reply.get(0);
		return !(first instanceof byte[] bytes && REFUSALS.contains(new String(bytes, StandardCharsets.US_ASCII)));
	}

	private void awaitAcknowledgement(RedisFuture<?> wait, int required, long deadlineMs, NodeState node)
			throws ScriptFailure {
		Object answer;
		try {
			answer = wait.get(Math.max(1, deadlineMs - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			node.doubt();
			if (ex.getCause() instanceof RedisCommandExecutionException refused && node.waitRefusedFirst()) {
				// the server itself refuses the wait (WAITAOF without an append-only file, or a server before 7.2):
				// no change on this node can be confirmed until that is fixed, so say so once
				logger.warn("Node {} refuses the replica wait ({}): no change there is confirmed (every one is "
						+ "lease_outcome_unknown); with replica-acknowledgement.disk-sync the server needs WAITAOF "
						+ "(Redis 7.2+, Valkey) and appendonly yes", node.name(), safeError(refused));
			}
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, Reason.REPLICAS_NOT_ACKNOWLEDGED,
					"the replica wait failed");
		}
		catch (TimeoutException | RuntimeException ex) {
			node.doubt();
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, Reason.REPLICAS_NOT_ACKNOWLEDGED,
					"no replica acknowledgement before the deadline");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, Reason.REPLICAS_NOT_ACKNOWLEDGED,
					"interrupted while awaiting the replicas");
		}
		long replicas;
		long local = 1;
		if (answer instanceof Long count) {
			replicas = count;
		}
		else if (answer instanceof List<?> counts && counts.size() == 2 && counts.get(0) instanceof Long l
				&& counts.get(1) instanceof Long r) {
			local = l;
			replicas = r;
		}
		else {
			replicas = -1;
		}
		if (replicas < required || local < 1) {
			node.doubt();
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, Reason.REPLICAS_NOT_ACKNOWLEDGED,
					"fewer replicas acknowledged than required");
		}
	}

	private static boolean alreadyLoaded(Throwable failure) {
		return String.valueOf(failure.getMessage()).contains("already exists");
	}

	private static @Nullable Object awaitPlain(Future<?> future, long deadlineMs) throws ScriptFailure {
		try {
			return future.get(Math.max(1, deadlineMs - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException | ExecutionException | RuntimeException ex) {
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "node did not answer");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "interrupted");
		}
	}

	private static List<Object> await(RedisFuture<List<Object>> future, long deadlineMs,
			LeaseLibrary.Function function) throws ScriptFailure, NotRun {
		try {
			return future.get(Math.max(1, deadlineMs - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, "no reply before the deadline");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, "interrupted while awaiting the reply");
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			String message = (cause != null) ? String.valueOf(cause.getMessage()) : "";
			if (message.contains("Function not found")) {
				throw new NotRun("function not found", true, null);
			}
			if (message.startsWith("MOVED ")) {
				int space = message.indexOf(' ', 6);
				throw new NotRun("moved", false, (space > 0) ? message.substring(space + 1).trim() : null);
			}
			for (String code : NOT_PRIMARY) {
				if (message.startsWith(code)) {
					logger.debug("Lease function {} not run by the node: {}", function.functionName(), code);
					throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, Reason.NOT_PRIMARY,
							"refused unrun: " + code);
				}
			}
			for (String code : UNRUN) {
				if (message.startsWith(code)) {
					logger.debug("Lease function {} not run by the node: {}", function.functionName(), code);
					throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "refused unrun: " + code);
				}
			}
			logger.warn("Lease function {} failed: {}", function.functionName(), safeError(cause));
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, "no usable reply");
		}
		catch (RuntimeException ex) {
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, "no usable reply");
		}
	}

	/** The error class and the first word of its message (an error code like BUSY or ERR), never key material. */
	private static String safeError(@Nullable Throwable cause) {
		if (cause == null) {
			return "unknown";
		}
		String message = String.valueOf(cause.getMessage());
		int space = message.indexOf(' ');
		return cause.getClass().getSimpleName() + " " + ((space > 0) ? message.substring(0, space) : message);
	}

	/** The keys a scan found, on how many primaries, and whether every primary was scanned to its end. */
	public record Scan(List<byte[]> keys, int nodes, boolean complete) {
	}

	/**
	 * The keys matching {@code pattern} ({@code SCAN ... MATCH}) on one primary ({@code node}: {@code host:port}) or on
	 * every primary known now, until the deadline.
	 */
	public Scan scanKeys(String pattern, @Nullable String node, Instant deadlineAt) {
		long deadlineMs = deadlineAt.toEpochMilli();
		List<byte[]> keys = new ArrayList<>();
		int nodes = 0;
		boolean complete = true;
		Router.Primaries primaries = this.router.primaries(deadlineMs);
		for (Route route : primaries.routes()) {
			try {
				if (node != null && !node.equals(route.node().name())) {
					continue;
				}
				// a node that is not a primary (a connection left on a demoted primary) is never a scanned primary:
				// what it holds may be behind its primary's, and a recovery of it changes nothing
				String role = route.commands().info("replication")
					.get(Math.max(1, deadlineMs - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
				if (role == null || !NodeState.isPrimary(role)) {
					demoted(route, "a recovery scan found it a replica");
					complete = false;
					continue;
				}
				nodes++;
				ScanCursor cursor = ScanCursor.INITIAL;
				ScanArgs args = ScanArgs.Builder.matches(pattern).limit(1000);
				while (true) {
					KeyScanCursor<byte[]> page = route.commands().scan(cursor, args)
						.get(Math.max(1, deadlineMs - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
					keys.addAll(page.getKeys());
					if (page.isFinished()) {
						break;
					}
					cursor = page;
				}
			}
			catch (TimeoutException | ExecutionException | RuntimeException ex) {
				complete = false;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				complete = false;
			}
			finally {
				route.release().run();
			}
		}
		// complete only when a node was scanned to its end: every primary known, or the one named (a node that could
		// not be reached is never a node with nothing on it)
		return new Scan(keys, nodes, complete && nodes > 0 && (node != null || primaries.all()));
	}

	/** Closes the store's own connections. */
	@Override
	public void close() {
		this.router.close();
		this.drops.close();
		if (this.connector != null) {
			this.connector.shutdownNow();
		}
	}

	/** The call did not run on the node: it may be sent once more. */
	private static final class NotRun extends Exception {

		private final boolean functionMissing;

		private final @Nullable String movedTo;

		NotRun(String message, boolean functionMissing, @Nullable String movedTo) {
			super(message, null, false, false);
			this.functionMissing = functionMissing;
			this.movedTo = movedTo;
		}

	}

	/** {@code WAITAOF numlocal numreplicas timeout} (Redis 7.2+, Valkey): not in every Lettuce line's command set. */
	private enum WaitAof implements ProtocolKeyword {

		WAITAOF;

		private final byte[] bytes = name().getBytes(StandardCharsets.US_ASCII);

		@Override
		public byte[] getBytes() {
			return this.bytes;
		}

	}

}
