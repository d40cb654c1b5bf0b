package io.starintel.lease.audit.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStreamCommands.XAddOptions;
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
 */
public final class RedisStreamAuditSink implements AuditSink {

	private final StringRedisTemplate redis;

	/** Default approximate bound of the admin stream (the Redis store's script uses the same bound). */
	public static final long ADMIN_STREAM_LENGTH = 100_000;

	private final long maxLength;

	private final long adminMaxLength;

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
		if (maxLength < 1 || adminMaxLength < 1) {
			throw new IllegalArgumentException("maxLength must be positive");
		}
		this.redis = redis;
		this.maxLength = maxLength;
		this.adminMaxLength = adminMaxLength;
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
		ProgramScope scope = event.scope();
		if (scope == null) {
			return;
		}
		MapRecord<String, String, String> record = StreamRecords.newRecord()
			.in(streamOf(event))
			.ofMap(event.toFields());
		RecordId id;
		try {
			id = this.redis.opsForStream()
				.add(record, XAddOptions.maxlen(boundOf(event)).approximateTrimming(true));
		}
		catch (RuntimeException ex) {
			throw new AuditWriteException("audit stream write failed");
		}
		if (id == null) {
			throw new AuditWriteException("audit stream write not confirmed");
		}
	}

	/**
	 * Writes a batch of events in one round trip (one {@code XADD} each, in order). On Lettuce the batch goes out at once
	 * on the template's shared connection ({@link #appendShared}); on another client through the template's pipeline.
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
		if (scoped.size() == 1) {
			record(scoped.get(0));
			return;
		}
		List<Object> ids;
		try {
			ids = this.redis.execute((RedisCallback<List<Object>>) (connection) -> appendShared(
					connection.getNativeConnection(), scoped));
			if (ids == null) {
				ids = pipelined(scoped);
			}
		}
		catch (RuntimeException ex) {
			throw new AuditWriteException("audit stream write failed");
		}
		if (ids.size() != scoped.size() || ids.contains(null)) {
			throw new AuditWriteException("audit stream write not confirmed");
		}
	}

	/**
	 * Lettuce: the batch's {@code XADD}s dispatched together on the connection the template shares (on a standalone or
	 * Sentinel connection one write and one flush), awaited for at most the connection's command timeout; null for
	 * another client. Spring Data Redis's pipeline would take a dedicated connection instead, which without a
	 * connection pool is a new connection (and its handshake) for every batch.
	 */
	private @Nullable List<Object> appendShared(@Nullable Object nativeConnection, List<AuditEvent> events) {
		StatefulConnection<byte[], byte[]> connection = statefulConnection(nativeConnection);
		if (connection == null) {
			return null;
		}
		List<AsyncCommand<byte[], byte[], String>> commands = new ArrayList<>(events.size());
		for (AuditEvent event : events) {
			commands.add(new AsyncCommand<>(
					new Command<>(CommandType.XADD, new StatusOutput<>(ByteArrayCodec.INSTANCE), xadd(event))));
		}
		connection.dispatch(commands);
		try {
			CompletableFuture.allOf(commands.toArray(new CompletableFuture<?>[0]))
				.get(connection.getTimeout().toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			cancel(commands);
			throw new AuditWriteException("audit stream write failed");
		}
		catch (ExecutionException | TimeoutException ex) {
			cancel(commands);
			throw new AuditWriteException("audit stream write failed");
		}
		List<Object> ids = new ArrayList<>(commands.size());
		for (AsyncCommand<byte[], byte[], String> command : commands) {
			ids.add(command.getNow(null));
		}
		return ids;
	}

	/** Gives up on the commands still unanswered (a late reply is then discarded). */
	private static void cancel(List<AsyncCommand<byte[], byte[], String>> commands) {
		for (AsyncCommand<byte[], byte[], String> command : commands) {
			command.cancel(false);
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
