package io.starintel.lease.audit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each event as one structured log line ({@code key=value} pairs in the stable field order) on the
 * {@code io.starintel.lease.audit} logger. Safe to log: events carry no secrets, metadata or raw keys.
 */
final class LogAuditSink implements AuditSink {

	private static final Logger logger = LoggerFactory.getLogger("io.starintel.lease.audit");

	@Override
	public void record(AuditEvent event) {
		if (!logger.isInfoEnabled()) {
			return;
		}
		// one reused writer and buffer per thread (the audit pipeline's): no map, no lambda, no per-field strings
		// beyond the values; numbers are appended as digits
		Line line = LINE.get();
		line.text.setLength(0);
		line.text.append("target_lease_audit");
		event.forEachField(line);
		logger.info(line.text.toString());
		if (line.text.capacity() > 8192) {
			LINE.remove(); // an unusually long line (an admin reason): do not keep its buffer
		}
	}

	private static final ThreadLocal<Line> LINE = ThreadLocal.withInitial(Line::new);

	/** The line being written: {@code name=value} pairs, values quoted when needed. */
	private static final class Line implements AuditEvent.FieldVisitor {

		private final StringBuilder text = new StringBuilder(768);

		@Override
		public void field(String name, String value) {
			appendQuoted(this.text.append(' ').append(name).append('='), value);
		}

		@Override
		public void longField(String name, long value) {
			// digits and '-' are never quoted: the same text as field(name, Long.toString(value))
			this.text.append(' ').append(name).append('=').append(value);
		}

	}

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
