package io.starintel.lease.audit;

import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
		StringBuilder line = new StringBuilder(512).append("target_lease_audit");
		for (Map.Entry<String, String> field : event.toFields().entrySet()) {
			line.append(' ').append(field.getKey()).append('=').append(quote(field.getValue()));
		}
		logger.info(line.toString());
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
