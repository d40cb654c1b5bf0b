package io.starintel.lease.audit.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.audit.internal.AuditWriteException;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import org.springframework.data.redis.connection.RedisStreamCommands.XAddOptions;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

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
		Map<String, String> fields = event.toFields();
		boolean admin = event.eventType().isAdministrative();
		MapRecord<String, String, String> record = StreamRecords.newRecord()
			.in(admin ? streamKey(scope) : routineStreamKey(scope))
			.ofMap(fields);
		RecordId id;
		try {
			id = this.redis.opsForStream()
				.add(record, XAddOptions.maxlen(admin ? this.adminMaxLength : this.maxLength).approximateTrimming(true));
		}
		catch (RuntimeException ex) {
			throw new AuditWriteException("audit stream write failed");
		}
		if (id == null) {
			throw new AuditWriteException("audit stream write not confirmed");
		}
	}

	/**
	 * Writes a batch of events with one pipelined round trip (one {@code XADD} each, in order). Events without a program
	 * scope are skipped, as in {@link #record}.
	 * @throws AuditWriteException when the pipeline failed or an entry was not confirmed
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
			ids = this.redis.executePipelined((RedisCallback<Object>) (connection) -> {
				for (AuditEvent event : scoped) {
					boolean admin = event.eventType().isAdministrative();
					String key = admin ? streamKey(event.scope()) : routineStreamKey(event.scope());
					Map<byte[], byte[]> fields = new LinkedHashMap<>();
					event.toFields().forEach((name, value) -> fields.put(bytes(name), bytes(value)));
					connection.streamCommands()
						.xAdd(MapRecord.create(bytes(key), fields),
								XAddOptions.maxlen(admin ? this.adminMaxLength : this.maxLength)
									.approximateTrimming(true));
				}
				return null;
			});
		}
		catch (RuntimeException ex) {
			throw new AuditWriteException("audit stream write failed");
		}
		if (ids.size() != scoped.size() || ids.contains(null)) {
			throw new AuditWriteException("audit stream write not confirmed");
		}
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	@Override
	public boolean isDurable() {
		return true;
	}

}
