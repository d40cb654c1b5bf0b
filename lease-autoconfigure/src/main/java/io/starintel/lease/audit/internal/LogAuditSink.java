package io.starintel.lease.audit.internal;


import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditSink;

/**
 * Writes each event as one structured log line ({@code key=value} pairs in the stable field order) on the
 * {@code io.starintel.lease.audit} logger. Safe to log: events carry no secrets, metadata or raw keys.
 */
public final class LogAuditSink implements AuditSink {

	private static final Logger logger = LoggerFactory.getLogger("io.starintel.lease.audit");

	@Override
	public void record(AuditEvent event) {
		if (!logger.isInfoEnabled()) {
			return;
		}
		// one reused buffer per thread (the audit pipeline's): no map, no per-field strings beyond the values
		StringBuilder line = LINE.get();
		line.setLength(0);
		line.append("target_lease_audit");
		event.forEachField((name, value) -> appendQuoted(line.append(' ').append(name).append('='), value));
		logger.info(line.toString());
		if (line.capacity() > 8192) {
			LINE.remove(); // an unusually long line (an admin reason): do not keep its buffer
		}
	}

	private static final ThreadLocal<StringBuilder> LINE = ThreadLocal.withInitial(() -> new StringBuilder(768));

	/** Appends {@link #quote(String)} of {@code value} without building the quoted string when it is plain. */
	private static void appendQuoted(StringBuilder line, String value) {
		boolean plain = !value.isEmpty();
		for (int i = 0; i < value.length() && plain; i++) {
			char c = value.charAt(i);
			plain = c > ' ' && c != '"' && c != '=' && c != '\\';
		}
		if (plain) {
			line.append(value);
		}
		else {
			line.append(quote(value));
		}
	}

	/** Quotes values that contain spaces, quotes or equals signs (admin reasons, target ids). */
	static String quote(String value) {
		boolean plain = true;
		for (int i = 0; i < value.length() && plain; i++) {
			char c = value.charAt(i);
			plain = c > ' ' && c != '"' && c != '=' && c != '\\';
		}
		if (plain && !value.isEmpty()) {
			return value;
		}
		return '"' + value.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
	}

}
