package io.starintel.lease.admin.console.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.core.ProgramScope;
import org.jspecify.annotations.Nullable;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.Limit;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Reads the newest entries of a program's two durable audit streams ({@link RedisStreamAuditSink#streamKey admin}
 * and {@link RedisStreamAuditSink#routineStreamKey routine}) with one bounded {@code XREVRANGE ... COUNT n} each.
 * Never throws a Redis exception: a failed read is {@link StreamRead#available() unavailable}; without a
 * {@code StringRedisTemplate} (no durable audit) every read is unavailable.
 */
public final class ConsoleAuditReader {

	private final @Nullable StringRedisTemplate redis;

	private final int scanDepth;

	/**
	 * A reader.
	 * @param redis the template of the durable stream sink, {@code null} when there is none
	 * @param scanDepth newest entries read per stream
	 */
	public ConsoleAuditReader(@Nullable StringRedisTemplate redis, int scanDepth) {
		this.redis = redis;
		this.scanDepth = scanDepth;
	}

	/** Whether durable streams exist at all (a Redis stream sink is configured). */
	public boolean configured() {
		return this.redis != null;
	}

	/** The newest entries of both streams of a program, each newest first. */
	public StreamRead read(ProgramScope scope) {
		StringRedisTemplate template = this.redis;
		if (template == null) {
			return new StreamRead(false, List.of(), List.of());
		}
		try {
			return new StreamRead(true, newest(template, RedisStreamAuditSink.streamKey(scope)),
					newest(template, RedisStreamAuditSink.routineStreamKey(scope)));
		}
		catch (RuntimeException ex) {
			return new StreamRead(false, List.of(), List.of());
		}
	}

	private List<Map<String, String>> newest(StringRedisTemplate template, String key) {
		List<MapRecord<String, Object, Object>> records = template.opsForStream()
			.reverseRange(key, Range.unbounded(), Limit.limit().count(this.scanDepth));
		List<Map<String, String>> events = new ArrayList<>();
		if (records == null) {
			return events;
		}
		for (MapRecord<String, Object, Object> record : records) {
			Map<String, String> fields = new LinkedHashMap<>();
			record.getValue().forEach((name, value) -> fields.put(String.valueOf(name), String.valueOf(value)));
			events.add(fields);
		}
		return events;
	}

	/**
	 * Entries of one program's streams.
	 * @param available whether the streams could be read
	 * @param admin admin stream (force-release, revoke), newest first
	 * @param routine routine stream (every other event), newest first
	 */
	public record StreamRead(boolean available, List<Map<String, String>> admin, List<Map<String, String>> routine) {

		public StreamRead {
			admin = List.copyOf(admin);
			routine = List.copyOf(routine);
		}

	}

}
