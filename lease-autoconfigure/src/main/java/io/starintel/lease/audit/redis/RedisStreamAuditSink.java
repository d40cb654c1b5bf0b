package io.starintel.lease.audit.redis;

import java.util.Map;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.audit.AuditWriteException;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import org.springframework.data.redis.connection.RedisStreamCommands.XAddOptions;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The durable audit sink: one bounded Redis Stream per program, {@code starintel:target-lease:v1:{T}:audit} where
 * {@code T} is {@link ProgramScope#hashTag()} (ARCHITECTURE.md, "P{T}:audit"), written with
 * {@code XADD key MAXLEN ~ bound * field value ...}.
 *
 * <p>Field names are those of {@link AuditEvent#toFields()}, the same the Redis store writes for force-release and
 * revoke inside its transition script, so one reader parses both. Events without a program scope (requests refused
 * before authentication named one) are not written here; the log and application-event sinks still get them.
 * Failures throw {@link AuditWriteException} with a fixed message (no key, no backend error text).
 */
public final class RedisStreamAuditSink implements AuditSink {

	private final StringRedisTemplate redis;

	private final long maxLength;

	/**
	 * A sink on a template.
	 * @param redis the template
	 * @param maxLength approximate bound of each program's stream ({@code MAXLEN ~})
	 */
	public RedisStreamAuditSink(StringRedisTemplate redis, long maxLength) {
		if (maxLength < 1) {
			throw new IllegalArgumentException("maxLength must be positive");
		}
		this.redis = redis;
		this.maxLength = maxLength;
	}

	/** The stream key of a program scope. */
	public static String streamKey(ProgramScope scope) {
		return LockIdentity.KEY_PREFIX + "{" + scope.hashTag() + "}:audit";
	}

	@Override
	public void record(AuditEvent event) {
		ProgramScope scope = event.scope();
		if (scope == null) {
			return;
		}
		Map<String, String> fields = event.toFields();
		MapRecord<String, String, String> record = StreamRecords.newRecord().in(streamKey(scope)).ofMap(fields);
		RecordId id;
		try {
			id = this.redis.opsForStream().add(record, XAddOptions.maxlen(this.maxLength).approximateTrimming(true));
		}
		catch (RuntimeException ex) {
			throw new AuditWriteException("audit stream write failed");
		}
		if (id == null) {
			throw new AuditWriteException("audit stream write not confirmed");
		}
	}

	@Override
	public boolean isDurable() {
		return true;
	}

}
