package io.starintel.lease.audit.redis;

import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerListOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolKeyword;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStreamCommands.XAddOptions;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.audit.internal.AuditWriteException;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;

/**
 * The durable audit sink: two bounded Redis Streams per program, where {@code T} is {@link ProgramScope#hashTag()}:
 * <ul>
 * <li>{@code starintel:target-lease:v1:{T}:audit} (docs/ARCHITECTURE.md, "P{T}:audit"), the <em>admin</em> stream:
 * force-release and revoke only (the Redis store's script appends each decision there; this sink adds refusals taken
 * before the decision). Routine events never go there, so they can never trim an admin record away.</li>
 * <li>{@code starintel:target-lease:v1:{T}:audit:routine}: every other event (acquire, renew, release, expiry, commit
 * rejections, list, inspect), normally written from the asynchronous audit pipeline.</li>
 * </ul>
 * Each is written with {@code XADD key MAXLEN ~ bound * field value ...} and its own bound.
 *
 * <p>Field names are those of {@link AuditEvent#toFields()}, the same the Redis store writes for force-release and
 * revoke inside its transition script, so one reader parses both. Events without a program scope (requests refused
 * before authentication named one) are not written here; the log and application-event sinks still get them.
 * Failures throw {@link AuditWriteException} with a fixed message (no key, no backend error text).
 *
 * <p>Connections and replicas: on Lettuce standalone or Sentinel the sink writes on one connection of its own, opened
 * on first use from the application's client ({@link #close()} closes it). Given a {@link ReplicaRequirement} (the
 * admin auto-configuration passes the store's {@code ReplicaAcknowledgement} rule), a write is confirmed only once the
 * replicas it requires have it ({@code WAIT n timeout} behind the write, on that connection, never on the template's
 * shared one, which a wait would block), as the Redis store confirms its own changes: by default on Sentinel at least
 * one, and every replica the primary reports (its {@code INFO replication}, asked before the first write and again at
 * most once a second; while it reports fewer, a write is refused without being sent). A demoted primary that has not
 * learnt it yet keeps accepting writes that its resynchronization then discards; waiting for its (absent) replicas
 * refuses them instead of confirming them. An acknowledgement counts only when none of the sink's connections dropped
 * or reconnected between the write and the answer (Lettuce sends an unanswered {@code WAIT} again after a
 * reconnection, possibly to the promoted node).
 *
 * <p>On a Lettuce cluster with a {@link ReplicaRequirement} the sink opens a cluster connection of its own: a batch is
 * split by the primary that serves each entry's stream, and each part goes on that connection's link to its primary,
 * followed there by its wait (a {@code WAIT} covers the writes of the connection it is sent on), each primary counting
 * its own replicas; when the cluster has replicas at all (by the client's view of the topology, or by the primary's
 * own {@code CLUSTER NODES}, asked with its count: the client's view may be older than the replicas), every
 * primary's writes wait for at least one, as the store's do. A failed part makes the client read the topology again
 * (at most every 100 ms, whatever its refresh options), so that after a failover the next attempt goes to the
 * promoted primary. Without a requirement a batch goes on the template's shared cluster connection, which routes each
 * entry. With another client than Lettuce, writes are not followed by a replica wait.
 *
 * <p>Waits: a batch ({@link #recordAll}, {@link #record}) is awaited for at most the connection's command timeout; an
 * event written for a request that waits for it ({@link #recordWithin}) at most the time left to that request's
 * deadline, nothing being sent once it has passed. The sink's connection on which a reply did not come in time is
 * retired (closed; the next write opens another, on a thread of its own that a write waits for within its bound):
 * Lettuce pairs replies with commands in order, so after a reply lost on a connection that stays open every later
 * reply would answer the command before it. A write that was not confirmed may still have landed: sent again by the
 * audit pipeline, its event may be in the stream twice (at least once).
 */
public final class RedisStreamAuditSink implements AuditSink, AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(RedisStreamAuditSink.class);

	/** How long after a write's timeout a replica wait's reply may still come before its connection is retired. */
	private static final long LATE_REPLY_GRACE_MS = 2_000;

	/** A bound far beyond any command timeout (no overflow when added to {@link System#nanoTime()}). */
	private static final long MAX_BOUND_MS = TimeUnit.DAYS.toMillis(1);

	private final StringRedisTemplate redis;

	/** Default approximate bound of the admin stream (the Redis store's script uses the same bound). */
	public static final long ADMIN_STREAM_LENGTH = 100_000;

	private final long maxLength;

	private final long adminMaxLength;

	private final @Nullable ReplicaRequirement replicas;

	/** Whether the template's factory follows Sentinel: its primary has replicas (at least one acknowledgement). */
	private final boolean sentinel;

	/** The replicas of the primary (standalone or Sentinel). */
	private final PrimaryReplicas primaryReplicas = new PrimaryReplicas(false);

	/** The replicas of each cluster primary, by {@code host:port}. */
	private final Map<String, PrimaryReplicas> nodeReplicas = new ConcurrentHashMap<>();

	/** Drops and reconnections of the sink's own connections, counted: an acknowledgement spans none. */
	private final AtomicLong connectionChanges = new AtomicLong();

	/** The sink's own connections (on a cluster, the node connections of its cluster connection too), by identity. */
	private final Set<Object> ownConnections = ConcurrentHashMap.newKeySet();

	private final Object opening = new Object();

	/** The sink's own connection: a {@link StatefulRedisConnection}, or on a cluster a {@link StatefulRedisClusterConnection}. */
	private volatile @Nullable StatefulConnection<byte[], byte[]> own;

	/** The opening of the sink's own connection under way, if any (guarded by {@link #opening}). */
	private @Nullable CompletableFuture<StatefulConnection<byte[], byte[]>> pendingOpen;

	private boolean closed;

	/** The client whose connection events {@link #connectionChangeCounter} counts (the one the own connection is from). */
	private volatile @Nullable AbstractRedisClient watched;

	/** When the sink last asked a cluster client to read the topology again ({@link System#nanoTime()}). */
	private final AtomicLong lastRefresh = new AtomicLong(System.nanoTime() - 1_000_000_000L);

	/**
	 * A sink on a template.
	 * @param redis the template
	 * @param maxLength approximate bound of each program's routine stream ({@code MAXLEN ~})
	 */
	public RedisStreamAuditSink(StringRedisTemplate redis, long maxLength) {
		this(redis, maxLength, ADMIN_STREAM_LENGTH);
	}

	/**
	 * A sink on a template.
	 * @param redis the template
	 * @param maxLength approximate bound of each program's routine stream ({@code MAXLEN ~})
	 * @param adminMaxLength approximate bound of each program's admin stream
	 */
	public RedisStreamAuditSink(StringRedisTemplate redis, long maxLength, long adminMaxLength) {
		this(redis, maxLength, adminMaxLength, null);
	}

	/**
	 * The replica acknowledgements a write needs before it is confirmed: the Redis store's rule
	 * ({@code ReplicaAcknowledgement::required}), handed over by the wiring so that one rule decides for both.
	 */
	@FunctionalInterface
	public interface ReplicaRequirement {

		/**
		 * @param reported the replicas the primary reports online
		 * @param sentinel whether the client follows a Sentinel-monitored primary (a topology with replicas)
		 * @return the acknowledgements a write needs ({@code 0}: no wait)
		 */
		int required(int reported, boolean sentinel);

		/**
		 * Whether the primary must also have written a write to its append-only file before it is confirmed
		 * ({@code WAITAOF 1 n timeout} instead of {@code WAIT n timeout}: the store's
		 * {@code replica-acknowledgement.disk-sync}); the server needs {@code appendonly yes}, or every write fails.
		 */
		default boolean diskSync() {
			return false;
		}

		/** A requirement that also waits for the primary's append-only file when {@code diskSync}. */
		static ReplicaRequirement of(ReplicaRequirement replicas, boolean diskSync) {
			return new ReplicaRequirement() {

				@Override
				public int required(int reported, boolean sentinel) {
					return replicas.required(reported, sentinel);
				}

				@Override
				public boolean diskSync() {
					return diskSync;
				}

			};
		}

	}

	/**
	 * A sink on a template.
	 * @param redis the template
	 * @param maxLength approximate bound of each program's routine stream ({@code MAXLEN ~})
	 * @param adminMaxLength approximate bound of each program's admin stream
	 * @param replicas the replicas a write needs before it is confirmed (the store's rule); null: no replica wait
	 */
	public RedisStreamAuditSink(StringRedisTemplate redis, long maxLength, long adminMaxLength,
			@Nullable ReplicaRequirement replicas) {
		if (maxLength < 1 || adminMaxLength < 1) {
			throw new IllegalArgumentException("maxLength must be positive");
		}
		this.redis = redis;
		this.maxLength = maxLength;
		this.adminMaxLength = adminMaxLength;
		this.replicas = replicas;
		RedisConnectionFactory factory = redis.getConnectionFactory();
		this.sentinel = factory instanceof LettuceConnectionFactory lettuce && lettuce.isRedisSentinelAware();
	}

	/** The admin stream key of a program scope (force-release and revoke). */
	public static String streamKey(ProgramScope scope) {
		return LockIdentity.KEY_PREFIX + "{" + scope.hashTag() + "}:audit";
	}

	/** The routine stream key of a program scope (every event but force-release and revoke). */
	public static String routineStreamKey(ProgramScope scope) {
		return streamKey(scope) + ":routine";
	}

	@Override
	public void record(AuditEvent event) {
		if (event.scope() == null) {
			return;
		}
		write(List.of(event), Long.MAX_VALUE);
	}

	/**
	 * Writes one event and waits for its confirmation at most {@code within} (the time left to the deadline of the
	 * request it is about), and never longer than {@link #record} would (the connection's command timeout): the
	 * admin endpoint's synchronous audit answers at the request's deadline. Nothing is sent when that time is up; an
	 * entry not confirmed in time is not reported as written (it may still land).
	 * @throws AuditWriteException when the write failed or was not confirmed in time
	 */
	@Override
	public void recordWithin(AuditEvent event, Duration within) {
		if (event.scope() == null) {
			return;
		}
		if (within.isNegative() || within.isZero()) {
			throw new AuditWriteException("audit stream write not sent: the request's deadline has passed");
		}
		write(List.of(event), Math.max(1, within.toMillis()));
	}

	/** One event through the template (another client than Lettuce). */
	private void recordThroughTemplate(AuditEvent event) {
		MapRecord<String, String, String> record = StreamRecords.newRecord()
			.in(streamOf(event))
			.ofMap(event.toFields());
		RecordId id = this.redis.opsForStream()
			.add(record, XAddOptions.maxlen(boundOf(event)).approximateTrimming(true));
		if (id == null) {
			throw new AuditWriteException("audit stream write not confirmed");
		}
	}

	/**
	 * Writes a batch of events in one round trip (one {@code XADD} each, in order). On Lettuce the batch goes out at once
	 * ({@link #append}: on the sink's own connection, on a cluster on the template's shared one); on another client
	 * through the template's pipeline.
	 * Events without a program scope are skipped, as in {@link #record}.
	 * @throws AuditWriteException when the write failed or an entry was not confirmed
	 */
	@Override
	public void recordAll(List<AuditEvent> events) {
		List<AuditEvent> scoped = new ArrayList<>(events.size());
		for (AuditEvent event : events) {
			if (event.scope() != null) {
				scoped.add(event);
			}
		}
		if (scoped.isEmpty()) {
			return;
		}
		write(scoped, Long.MAX_VALUE);
	}

	/**
	 * Writes scoped events: on Lettuce on the sink's own connection (on a cluster, without a replica requirement, the
	 * template's shared one), awaited for at most the connection's command timeout and {@code boundMs}; otherwise
	 * through the template (its own timeout).
	 */
	private void write(List<AuditEvent> scoped, long boundMs) {
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.min(boundMs, MAX_BOUND_MS));
		List<Object> ids;
		try {
			StatefulConnection<byte[], byte[]> own = ownConnection(boundMs);
			if (own instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
				ids = appendOnPrimaries(cluster, scoped, remainingMs(deadline, cluster));
			}
			else if (own != null) {
				ids = append(List.of(new NodeBatch(own, this.primaryReplicas, this.sentinel, scoped)), scoped.size(),
						this.replicas != null, remainingMs(deadline, own), own);
			}
			else {
				ids = this.redis.execute((RedisCallback<List<Object>>) (connection) -> appendShared(
						connection.getNativeConnection(), scoped, deadline));
			}
			if (ids == null) {
				if (scoped.size() == 1) {
					recordThroughTemplate(scoped.get(0));
					return;
				}
				ids = pipelined(scoped);
			}
		}
		catch (AuditWriteException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			throw new AuditWriteException("audit stream write failed");
		}
		if (ids.size() != scoped.size() || ids.contains(null)) {
			throw new AuditWriteException("audit stream write not confirmed");
		}
	}

	/** The time left to {@code deadline} ({@link System#nanoTime()}), at most the connection's command timeout. */
	private static long remainingMs(long deadline, StatefulConnection<?, ?> connection) {
		long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
		if (left <= 0) {
			throw new AuditWriteException("audit stream write not sent: the request's deadline has passed");
		}
		return Math.min(left, connection.getTimeout().toMillis());
	}

	/**
	 * A Lettuce cluster without a replica requirement: the batch on the template's shared cluster connection (Lettuce
	 * routes each entry to its slot's node); null for another client than Lettuce.
	 */
	private @Nullable List<Object> appendShared(@Nullable Object nativeConnection, List<AuditEvent> events,
			long deadline) {
		StatefulConnection<byte[], byte[]> connection = statefulConnection(nativeConnection);
		return (connection != null) ? append(List.of(new NodeBatch(connection, this.primaryReplicas, false, events)),
				events.size(), false, remainingMs(deadline, connection), null) : null;
	}

	/**
	 * A Lettuce cluster with a replica requirement: the events grouped by the primary that serves their stream's
	 * slot, each group with its wait on the sink's own connection to that primary (a {@code WAIT} covers the writes of
	 * the connection it is sent on).
	 */
	private List<Object> appendOnPrimaries(StatefulRedisClusterConnection<byte[], byte[]> cluster,
			List<AuditEvent> events, long timeoutMs) {
		try {
			return appendOnPrimariesOf(cluster, cluster.getPartitions(), events, timeoutMs);
		}
		catch (RuntimeException ex) {
			// the topology may be stale (a failover: the former primary refuses, or answers MOVED, on this direct
			// link): the client reads it again, whatever its refresh options, for the next attempt
			refreshTopology();
			throw ex;
		}
	}

	private List<Object> appendOnPrimariesOf(StatefulRedisClusterConnection<byte[], byte[]> cluster,
			Partitions partitions, List<AuditEvent> events, long timeoutMs) {
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
		boolean replicated = hasReplicas(partitions);
		Map<RedisClusterNode, List<Integer>> positions = new LinkedHashMap<>();
		for (int i = 0; i < events.size(); i++) {
			RedisClusterNode primary = partitions.getMasterBySlot(SlotHash.getSlot(bytes(streamOf(events.get(i)))));
			if (primary == null) {
				throw new AuditWriteException("audit stream write failed: no primary serves the slot");
			}
			positions.computeIfAbsent(primary, (node) -> new ArrayList<>()).add(i);
		}
		List<NodeBatch> batches = new ArrayList<>(positions.size());
		for (Map.Entry<RedisClusterNode, List<Integer>> group : positions.entrySet()) {
			RedisURI uri = group.getKey().getUri();
			StatefulRedisConnection<byte[], byte[]> node = nodeConnection(cluster, uri, deadline);
			List<AuditEvent> nodeEvents = new ArrayList<>(group.getValue().size());
			group.getValue().forEach((i) -> nodeEvents.add(events.get(i)));
			batches.add(new NodeBatch(node,
					this.nodeReplicas.computeIfAbsent(uri.getHost() + ":" + uri.getPort(), (key) -> new PrimaryReplicas(true)),
					replicated, nodeEvents));
		}
		List<Object> byNode;
		try {
			byNode = append(batches, events.size(), true,
					Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())), cluster);
		}
		catch (AuditWriteException ex) {
			// the parts confirmed, named by their places in the batch
			BitSet confirmed = ex.confirmed();
			BitSet inBatch = new BitSet(events.size());
			int next = 0;
			for (List<Integer> group : positions.values()) {
				for (int i : group) {
					inBatch.set(i, confirmed.get(next++));
				}
			}
			throw new AuditWriteException(ex.getMessage(), inBatch);
		}
		// back into the batch's order
		Object[] ids = new Object[events.size()];
		int next = 0;
		for (List<Integer> group : positions.values()) {
			for (int i : group) {
				ids[i] = byNode.get(next++);
			}
		}
		return Arrays.asList(ids);
	}

	/** Asks the cluster client to read the topology again, at most every 100 ms. */
	private void refreshTopology() {
		if (this.watched instanceof RedisClusterClient client) {
			long now = System.nanoTime();
			long last = this.lastRefresh.get();
			if (now - last >= 100_000_000L && this.lastRefresh.compareAndSet(last, now)) {
				client.refreshPartitionsAsync();
			}
		}
	}

	/** The sink's connection to a cluster primary (opened by its cluster connection, counted as its own). */
	private StatefulRedisConnection<byte[], byte[]> nodeConnection(StatefulRedisClusterConnection<byte[], byte[]> cluster,
			RedisURI uri, long deadline) {
		try {
			StatefulRedisConnection<byte[], byte[]> node = cluster.getConnectionAsync(uri.getHost(), uri.getPort())
				.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			this.ownConnections.add(node);
			return node;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AuditWriteException("audit stream write failed");
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new AuditWriteException("audit stream write failed");
		}
	}

	/**
	 * Whether the cluster has replicas at all: then every primary's writes wait for at least one, as the store's do (a
	 * primary just promoted reports none until its former primary rejoins; deciding per shard would confirm writes
	 * there that the next failover of the shard loses).
	 */
	private static boolean hasReplicas(Iterable<RedisClusterNode> view) {
		for (RedisClusterNode node : view) {
			if (node.getSlaveOf() != null || node.is(RedisClusterNode.NodeFlag.REPLICA)) {
				return true;
			}
		}
		return false;
	}

	/** The events one primary gets, on the connection to it, and what the sink knows of its replicas. */
	private record NodeBatch(StatefulConnection<byte[], byte[]> connection, PrimaryReplicas replicas,
			boolean topologyHasReplicas, List<AuditEvent> events) {
	}

	/** A node batch's commands once built: the replica count asked for, the writes and their wait. */
	private record Sent(@Nullable Ask ask,
			List<AsyncCommand<byte[], byte[], String>> appends, @Nullable AsyncCommand<byte[], byte[], ?> replicaWait,
			int required, List<AsyncCommand<byte[], byte[], ?>> commands) {
	}

	/**
	 * Each node batch's {@code XADD}s dispatched together on its connection (one write, one flush), followed there by
	 * the replica wait the write needs when {@code waits}, all awaited for at most {@code boundMs} (with the replica
	 * count asked for ahead of them, when due). A reply that did not come in time retires {@code owner}, the sink's
	 * connection the batches went out on ({@code null}: the template's, which the sink does not own).
	 * @return the entry ids, node batch after node batch
	 */
	private List<Object> append(List<NodeBatch> batches, int size, boolean waits, long boundMs,
			@Nullable StatefulConnection<byte[], byte[]> owner) {
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMs);
		if (waits) {
			for (NodeBatch batch : batches) {
				checkReplicas(batch, boundMs, owner);
			}
		}
		// what asking for the replicas took is the writes' no more
		long timeoutMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
		if (timeoutMs <= 0) {
			throw new AuditWriteException("audit stream write not sent: the replicas were not known in time");
		}
		List<Sent> sent = new ArrayList<>(batches.size());
		List<CompletableFuture<?>> decisive = new ArrayList<>(size + batches.size());
		for (NodeBatch batch : batches) {
			Sent commands = commands(batch, waits, timeoutMs);
			sent.add(commands);
			// the writes and their wait decide; the replica count asked for ahead of them only serves later writes
			decisive.addAll(commands.appends());
			if (commands.replicaWait() != null) {
				decisive.add(commands.replicaWait());
			}
		}
		long mark = this.connectionChanges.get();
		for (int i = 0; i < batches.size(); i++) {
			batches.get(i).connection().dispatch(sent.get(i).commands());
		}
		boolean failed = false;
		try {
			CompletableFuture.allOf(decisive.toArray(new CompletableFuture<?>[0])).get(timeoutMs, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			failed = true;
		}
		catch (ExecutionException | TimeoutException ex) {
			failed = true;
		}
		finally {
			for (int i = 0; i < batches.size(); i++) {
				Ask ask = sent.get(i).ask();
				if (ask != null) {
					batches.get(i).replicas().answered(ask);
				}
			}
		}
		// a demoted primary accepts writes it will discard; a wait answered after a reconnection may come from the node
		// promoted in its place: neither confirms the entries
		boolean reconnected = this.connectionChanges.get() != mark;
		List<Object> ids = new ArrayList<>(size);
		BitSet confirmed = new BitSet(size);
		boolean everyPart = true;
		for (Sent commands : sent) {
			boolean part = !reconnected && confirmed(commands);
			for (AsyncCommand<byte[], byte[], String> append : commands.appends()) {
				if (part) {
					confirmed.set(ids.size());
				}
				ids.add(part ? append.getNow(null) : null);
			}
			everyPart &= part;
		}
		if (!everyPart) {
			if (owner != null && onReplica(batches, sent)) {
				throw new AuditWriteException("audit stream write refused: the connection is on a replica", confirmed);
			}
			// the waits still unanswered are given up on once the grace period has told whether their replies came
			Set<AsyncCommand<byte[], byte[], ?>> pendingWaits = (owner != null) ? retireIfUnanswered(owner, sent)
					: Set.of();
			sent.forEach((commands) -> cancel(commands.commands(), pendingWaits));
			// a batch that went to several primaries may be confirmed in part: those entries are not sent again
			throw new AuditWriteException(failed ? "audit stream write failed"
					: "audit stream write not acknowledged by the replicas", confirmed);
		}
		return ids;
	}

	/**
	 * Whether the sink's own standalone or Sentinel connection {@code owner} is on a replica (a primary demoted under
	 * it: Lettuce keeps a connection where it is, and reconnects one to the address it last knew): its
	 * {@code INFO replication} said {@code role:slave}, or a write was refused {@code READONLY} or
	 * {@code MASTERDOWN}. Such a connection is retired (the next write opens another, through the sentinels) and what
	 * the sink knew of the primary's replicas forgotten; otherwise every later write would be refused there for good.
	 * Cluster nodes are not looked at here (a failed part makes the client read the topology again).
	 */
	private boolean onReplica(List<NodeBatch> batches, List<Sent> sent) {
		StatefulConnection<byte[], byte[]> connection = (batches.size() == 1) ? batches.get(0).connection() : null;
		if (connection == null || connection != this.own || connection instanceof StatefulRedisClusterConnection) {
			return false;
		}
		boolean replica = this.primaryReplicas.onReplica;
		for (Sent commands : sent) {
			for (AsyncCommand<byte[], byte[], String> append : commands.appends()) {
				replica |= refusedByAReplica(append);
			}
		}
		if (replica) {
			this.primaryReplicas.forget();
			retire(connection, "the connection is on a replica");
		}
		return replica;
	}

	/** Whether a write was refused as a replica refuses it ({@code READONLY}, {@code MASTERDOWN}). */
	private static boolean refusedByAReplica(CompletableFuture<?> command) {
		Throwable failure = failureOf(command);
		String message = (failure != null) ? failure.getMessage() : null;
		return message != null && (message.startsWith("READONLY") || message.startsWith("MASTERDOWN"));
	}

	/** What a completed command failed with (as Lettuce reported it); null when not done, answered or cancelled. */
	private static @Nullable Throwable failureOf(CompletableFuture<?> command) {
		if (!command.isDone()) {
			return null;
		}
		try {
			command.getNow(null);
			return null;
		}
		catch (CompletionException ex) {
			return ex.getCause();
		}
		catch (CancellationException ex) {
			return null;
		}
	}

	/** Whether a node batch's writes all completed and its wait (when one was sent) acknowledged them. */
	private static boolean confirmed(Sent commands) {
		for (AsyncCommand<byte[], byte[], String> append : commands.appends()) {
			if (!append.isDone() || append.isCompletedExceptionally() || append.getNow(null) == null) {
				return false;
			}
		}
		AsyncCommand<byte[], byte[], ?> wait = commands.replicaWait();
		return wait == null || (wait.isDone() && !wait.isCompletedExceptionally()
				&& acknowledged(wait.getNow(null), commands.required()));
	}

	/**
	 * Before a write that waits: the first write to a primary learns its replicas (it would otherwise wait for none);
	 * as the store, nothing is sent while the primary reports too few replicas (a demoted primary reports none), after
	 * asking it once more when the count is due for a refresh.
	 */
	private void checkReplicas(NodeBatch batch, long timeoutMs, @Nullable StatefulConnection<byte[], byte[]> owner) {
		PrimaryReplicas replicas = batch.replicas();
		if (replicas.reported >= 0 && !fewerThanRequired(batch)) {
			return;
		}
		if (replicas.reported < 0 || replicas.claimAsk()) {
			Ask ask = replicas.ask();
			batch.connection().dispatch(ask.commands());
			try {
				ask.info().get(timeoutMs, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (ExecutionException | TimeoutException ex) {
				if (owner != null && ask.commands().stream().anyMatch(RedisStreamAuditSink::unanswered)) {
					retire(owner, "the reply to a replica count did not come in time");
				}
				ask.commands().forEach((command) -> command.cancel(false));
			}
			replicas.answered(ask);
		}
		if (owner != null && onReplica(List.of(batch), List.of())) {
			throw new AuditWriteException("audit stream write refused: the connection is on a replica");
		}
		if (replicas.reported < 0) {
			throw new AuditWriteException("audit stream write refused: the primary's replicas are unknown");
		}
		if (fewerThanRequired(batch)) {
			throw new AuditWriteException("audit stream write refused: fewer replicas online than required");
		}
	}

	/** A node batch's commands: the replica count when due, the {@code XADD}s, the wait when one is required. */
	private Sent commands(NodeBatch batch, boolean waits, long timeoutMs) {
		List<AsyncCommand<byte[], byte[], ?>> commands = new ArrayList<>(batch.events().size() + 2);
		Ask ask = null;
		if (waits && batch.replicas().claimAsk()) {
			ask = batch.replicas().ask();
			commands.addAll(ask.commands());
		}
		List<AsyncCommand<byte[], byte[], String>> appends = new ArrayList<>(batch.events().size());
		for (AuditEvent event : batch.events()) {
			appends.add(new AsyncCommand<>(
					new Command<>(CommandType.XADD, new StatusOutput<>(ByteArrayCodec.INSTANCE), xadd(event))));
		}
		commands.addAll(appends);
		int required = waits ? required(batch) : 0;
		boolean diskSync = waits && this.replicas != null && this.replicas.diskSync();
		AsyncCommand<byte[], byte[], ?> wait = null;
		if (diskSync) {
			wait = new AsyncCommand<>(new Command<>(WaitAof.WAITAOF, new IntegerListOutput<>(ByteArrayCodec.INSTANCE),
					new CommandArgs<>(ByteArrayCodec.INSTANCE).add(1).add(required).add(Math.max(1, timeoutMs))));
		}
		else if (required > 0) {
			wait = new AsyncCommand<>(new Command<>(CommandType.WAIT, new IntegerOutput<>(ByteArrayCodec.INSTANCE),
					new CommandArgs<>(ByteArrayCodec.INSTANCE).add(required).add(Math.max(1, timeoutMs))));
		}
		if (wait != null) {
			commands.add(wait);
		}
		return new Sent(ask, appends, wait, required, commands);
	}

	/**
	 * The sink's own connection, opened on first use from the application's Lettuce client (the client's URI,
	 * credentials, TLS and resources): a replica wait blocks the connection it is sent on, so it never goes on the
	 * template's shared connection, which the application's other Redis calls use. Lettuce reconnects it (on Sentinel to
	 * the promoted primary). Standalone or Sentinel: a connection; a cluster, when writes wait for replicas: a cluster
	 * connection (whose node connections carry the writes and their waits). Null on a cluster without a replica
	 * requirement, and with another client. The connection is opened on a thread of its own (Lettuce's connect waits
	 * up to its connect timeout, then up to the command timeout for the handshake), which a write waits for at most
	 * {@code waitMs}: a server that does not answer holds a request no longer than its deadline; the next write waits
	 * for the same opening.
	 */
	private @Nullable StatefulConnection<byte[], byte[]> ownConnection(long waitMs) {
		StatefulConnection<byte[], byte[]> connection = this.own;
		if (connection != null) {
			return connection;
		}
		RedisConnectionFactory factory = this.redis.getConnectionFactory();
		if (!(factory instanceof LettuceConnectionFactory lettuce)) {
			return null;
		}
		AbstractRedisClient client = lettuce.getNativeClient();
		if (!(client instanceof RedisClient) && !(client instanceof RedisClusterClient && this.replicas != null)) {
			return null;
		}
		CompletableFuture<StatefulConnection<byte[], byte[]>> open;
		synchronized (this.opening) {
			if (this.closed) {
				throw new AuditWriteException("audit stream sink closed");
			}
			if (this.own != null) {
				return this.own;
			}
			if (this.watched == null) {
				// counted from the connection's first use: a replica wait compares the count before and after it
				client.addListener(this.connectionChangeCounter);
				this.watched = client;
			}
			open = this.pendingOpen;
			if (open == null) {
				open = new CompletableFuture<>();
				this.pendingOpen = open;
				CompletableFuture<StatefulConnection<byte[], byte[]>> opened = open;
				Thread opener = new Thread(() -> open(client, opened), "starintel-audit-sink-connect");
				opener.setDaemon(true);
				opener.start();
			}
		}
		try {
			return open.get(Math.min(waitMs, MAX_BOUND_MS), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AuditWriteException("audit stream write failed");
		}
		catch (ExecutionException ex) {
			throw new AuditWriteException("audit stream write failed");
		}
		catch (TimeoutException ex) {
			throw new AuditWriteException("audit stream write failed: no connection in time");
		}
	}

	/** Opens the sink's own connection (on the opening thread) and completes {@code open} with it. */
	private void open(AbstractRedisClient client, CompletableFuture<StatefulConnection<byte[], byte[]>> open) {
		StatefulConnection<byte[], byte[]> opened = null;
		try {
			opened = (client instanceof RedisClient standalone) ? standalone.connect(ByteArrayCodec.INSTANCE)
					: ((RedisClusterClient) client).connect(ByteArrayCodec.INSTANCE);
		}
		catch (RuntimeException ex) {
			// the next write tries again
			synchronized (this.opening) {
				this.pendingOpen = null;
			}
			open.completeExceptionally(ex);
			return;
		}
		synchronized (this.opening) {
			this.pendingOpen = null;
			if (this.closed) {
				opened.closeAsync();
				open.completeExceptionally(new AuditWriteException("audit stream sink closed"));
				return;
			}
			this.ownConnections.add(opened);
			this.own = opened;
		}
		open.complete(opened);
	}

	/**
	 * After a write that failed: retires {@code owner} when a reply on it did not come in time (a command still
	 * unanswered, or one that timed out in Lettuce). A replica wait answers at its own timeout, which is the write's,
	 * so when only waits are unanswered the connection is retired only if a wait's reply has not come
	 * {@value #LATE_REPLY_GRACE_MS} ms later; those waits are given up on then.
	 * @return the waits whose replies the grace period awaits (not to be cancelled before)
	 */
	private Set<AsyncCommand<byte[], byte[], ?>> retireIfUnanswered(StatefulConnection<byte[], byte[]> owner,
			List<Sent> sent) {
		Set<AsyncCommand<byte[], byte[], ?>> waits = Collections.newSetFromMap(new IdentityHashMap<>());
		for (Sent commands : sent) {
			for (AsyncCommand<byte[], byte[], ?> command : commands.commands()) {
				if (command == commands.replicaWait()) {
					if (!command.isDone()) {
						waits.add(command);
					}
				}
				else if (unanswered(command)) {
					retire(owner, "a reply did not come in time");
					return Set.of();
				}
			}
		}
		if (!waits.isEmpty()) {
			CompletableFuture.delayedExecutor(LATE_REPLY_GRACE_MS, TimeUnit.MILLISECONDS).execute(() -> {
				if (waits.stream().anyMatch(RedisStreamAuditSink::unanswered)) {
					retire(owner, "the reply to a replica wait did not come in time");
				}
				waits.forEach((wait) -> wait.cancel(false));
			});
		}
		return waits;
	}

	/**
	 * Whether a command's reply has not come: not completed, or completed by Lettuce's command timeout (the reply may
	 * still come, or never). A command completed otherwise (a reply, an error reply, a closed connection) or cancelled
	 * by the sink after its check is not.
	 */
	private static boolean unanswered(CompletableFuture<?> command) {
		return !command.isDone() || failureOf(command) instanceof RedisCommandTimeoutException;
	}

	/**
	 * Retires the sink's connection {@code connection} (closed; the next write opens another), when it still is the
	 * sink's: Lettuce pairs each reply with the oldest command waiting for one, so on a connection that lost a reply (a
	 * proxy or middlebox dropping bytes, the connection staying open) every later reply would answer the command before
	 * it, and every write fail at its timeout, until something cut the connection. Writes still waiting on it fail (not
	 * confirmed; the audit pipeline sends them again). A slow server costs a reconnection.
	 */
	private void retire(StatefulConnection<byte[], byte[]> connection, String why) {
		synchronized (this.opening) {
			if (this.own != connection) {
				return;
			}
			this.own = null;
			// its close (and its node connections') is no drop of the next connection
			this.ownConnections.clear();
		}
		logger.debug("Audit stream sink connection retired: {}", why);
		connection.closeAsync();
	}

	/** Closes the sink's own connection (a write after this fails). */
	@Override
	public void close() {
		synchronized (this.opening) {
			this.closed = true;
			StatefulConnection<byte[], byte[]> connection = this.own;
			this.own = null;
			if (connection != null) {
				connection.closeAsync();
			}
			this.ownConnections.clear();
			AbstractRedisClient client = this.watched;
			this.watched = null;
			if (client != null) {
				client.removeListener(this.connectionChangeCounter);
			}
		}
	}

	/** Whether the primary's last reported replica count (when known) is below what a write needs. */
	private boolean fewerThanRequired(NodeBatch batch) {
		int reported = batch.replicas().reported;
		return reported >= 0 && reported < required(batch);
	}

	/**
	 * The acknowledgements a node batch's write needs: whether the deployment has replicas is the client's view's word
	 * or the primary's own (a cluster primary's {@code CLUSTER NODES}, asked with its replica count): a client's view may
	 * be older than the replicas (Spring Boot's default options load it once), and a primary whose replica is cut off
	 * reports none.
	 */
	private int required(NodeBatch batch) {
		ReplicaRequirement requirement = this.replicas;
		PrimaryReplicas replicas = batch.replicas();
		return (requirement != null) ? requirement.required(Math.max(replicas.reported, 0),
				batch.topologyHasReplicas() || replicas.nodeSeesReplicas) : 0;
	}

	/**
	 * Whether a wait's answer confirms a write: {@code WAIT}'s count of replicas, or {@code WAITAOF}'s pair (the
	 * primary's own append-only file, then the replicas'), at least what was required of each.
	 */
	private static boolean acknowledged(@Nullable Object answer, int required) {
		if (answer instanceof Long replicas) {
			return replicas >= required;
		}
		return answer instanceof List<?> counts && counts.size() == 2 && counts.get(0) instanceof Long local
				&& counts.get(1) instanceof Long replicas && local >= 1 && replicas >= required;
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

	/** What is asked of a primary about its replicas: its view of the cluster (a cluster primary), then its count. */
	private record Ask(@Nullable AsyncCommand<byte[], byte[], String> view, AsyncCommand<byte[], byte[], String> info) {

		List<AsyncCommand<byte[], byte[], String>> commands() {
			return (this.view != null) ? List.of(this.view, this.info) : List.of(this.info);
		}

		static @Nullable String answer(@Nullable AsyncCommand<byte[], byte[], String> command) {
			return (command != null && command.isDone() && !command.isCompletedExceptionally())
					? command.getNow(null) : null;
		}

	}

	/**
	 * What the sink knows of one primary's replicas: the count it reported online and, a cluster primary, whether its
	 * own view of the cluster has replicas, asked at most once a second.
	 */
	private static final class PrimaryReplicas {

		/** A cluster primary: its view of the cluster ({@code CLUSTER NODES}) is asked with its count. */
		private final boolean cluster;

		/** Whether the primary's own view of the cluster, when last asked, listed a replica (any node's). */
		volatile boolean nodeSeesReplicas;

		PrimaryReplicas(boolean cluster) {
			this.cluster = cluster;
		}

		/** The replicas the primary reported online ({@code -1}: not asked yet). */
		volatile int reported = -1;

		/** Whether the node, when last asked, said it is a replica ({@code role:slave}). */
		volatile boolean onReplica;

		/** Forgets what the node said (another connection, possibly to another node, asks again). */
		void forget() {
			this.onReplica = false;
			this.reported = -1;
		}

		/** When the primary's replicas were last asked for ({@link System#nanoTime()}). */
		private volatile long reportedAt;

		private final AtomicBoolean asking = new AtomicBoolean();

		/** Whether this write asks the primary for its replicas (first write, then at most once a second). */
		boolean claimAsk() {
			boolean due = this.reported < 0 || System.nanoTime() - this.reportedAt > 1_000_000_000L;
			return due && this.asking.compareAndSet(false, true);
		}

		/** The commands that ask the primary ({@code CLUSTER NODES} first, so answered first, then the count). */
		Ask ask() {
			AsyncCommand<byte[], byte[], String> view = this.cluster
					? new AsyncCommand<>(new Command<>(CommandType.CLUSTER, new StatusOutput<>(ByteArrayCodec.INSTANCE),
							new CommandArgs<>(ByteArrayCodec.INSTANCE).add("NODES")))
					: null;
			return new Ask(view, new AsyncCommand<>(new Command<>(CommandType.INFO,
					new StatusOutput<>(ByteArrayCodec.INSTANCE), new CommandArgs<>(ByteArrayCodec.INSTANCE).add("replication"))));
		}

		/**
		 * Takes {@code connected_slaves} from the {@code INFO replication} answer and whether the cluster view lists a
		 * replica (each kept as it was when not answered or unreadable); another ask may start.
		 */
		void answered(Ask ask) {
			String view = Ask.answer(ask.view());
			if (view != null) {
				try {
					this.nodeSeesReplicas = hasReplicas(ClusterPartitionParser.parse(view));
				}
				catch (RuntimeException ex) {
					// an answer the driver cannot read: what the primary said before stands
				}
			}
			String info = Ask.answer(ask.info());
			try {
				if (info != null) {
					for (String line : info.split("\r?\n")) {
						if (line.startsWith("role:")) {
							String role = line.substring(line.indexOf(':') + 1).trim();
							this.onReplica = role.equals("slave") || role.equals("replica");
						}
						if (line.startsWith("connected_slaves:")) {
							this.reported = Integer.parseInt(line.substring(line.indexOf(':') + 1).trim());
							this.reportedAt = System.nanoTime();
						}
					}
				}
			}
			catch (NumberFormatException ex) {
				// an answer this sink cannot read: asked again with the next write
			}
			finally {
				this.asking.set(false);
			}
		}

	}

	/**
	 * Counts the drops and reconnections of the sink's own connection (the client reports those of all its
	 * connections: the application's, the store's; theirs say nothing of where a wait on this one was answered).
	 */
	private final RedisConnectionStateListener connectionChangeCounter = new RedisConnectionStateListener() {

		@Override
		public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
			count(connection);
		}

		@Override
		public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
			count(connection);
		}

		private void count(RedisChannelHandler<?, ?> connection) {
			if (RedisStreamAuditSink.this.ownConnections.contains(connection)) {
				RedisStreamAuditSink.this.connectionChanges.incrementAndGet();
			}
		}

	};

	/** Gives up on the commands still unanswered but {@code kept} (a late reply is then discarded). */
	private static void cancel(List<AsyncCommand<byte[], byte[], ?>> commands,
			Set<AsyncCommand<byte[], byte[], ?>> kept) {
		for (AsyncCommand<byte[], byte[], ?> command : commands) {
			if (!kept.contains(command)) {
				command.cancel(false);
			}
		}
	}

	@SuppressWarnings("unchecked")
	private static @Nullable StatefulConnection<byte[], byte[]> statefulConnection(@Nullable Object nativeConnection) {
		if (nativeConnection instanceof RedisAsyncCommands<?, ?> standalone) {
			return (StatefulConnection<byte[], byte[]>) standalone.getStatefulConnection();
		}
		if (nativeConnection instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
			return (StatefulConnection<byte[], byte[]>) cluster.getStatefulConnection();
		}
		return null;
	}

	/** {@code XADD key MAXLEN ~ bound * field value ...} of one event, fields in {@link AuditEvent#toFields()} order. */
	private CommandArgs<byte[], byte[]> xadd(AuditEvent event) {
		CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE).addKey(bytes(streamOf(event)))
			.add("MAXLEN")
			.add("~")
			.add(boundOf(event))
			.add("*");
		event.forEachField(new AuditEvent.FieldVisitor() {

			@Override
			public void field(String name, String value) {
				args.add(name).add(value);
			}

			@Override
			public void longField(String name, long value) {
				args.add(name).add(value);
			}

		});
		return args;
	}

	/** Another client than Lettuce: the template's pipeline. */
	private List<Object> pipelined(List<AuditEvent> events) {
		return this.redis.executePipelined((RedisCallback<Object>) (connection) -> {
			for (AuditEvent event : events) {
				Map<byte[], byte[]> fields = new LinkedHashMap<>();
				event.toFields().forEach((name, value) -> fields.put(bytes(name), bytes(value)));
				connection.streamCommands()
					.xAdd(MapRecord.create(bytes(streamOf(event)), fields),
							XAddOptions.maxlen(boundOf(event)).approximateTrimming(true));
			}
			return null;
		});
	}

	/** The stream of a scoped event: the admin stream for force-release and revoke, the routine stream otherwise. */
	private static String streamOf(AuditEvent event) {
		ProgramScope scope = Objects.requireNonNull(event.scope());
		return event.eventType().isAdministrative() ? streamKey(scope) : routineStreamKey(scope);
	}

	/** The approximate bound ({@code MAXLEN ~}) of that stream. */
	private long boundOf(AuditEvent event) {
		return event.eventType().isAdministrative() ? this.adminMaxLength : this.maxLength;
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	@Override
	public boolean isDurable() {
		return true;
	}

}
