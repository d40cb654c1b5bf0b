package io.starintel.lease.audit.internal;

/**
 * A durable audit sink could not persist an event. The message is safe: it never carries a key, a backend name or
 * the backend's error text.
 */
public class AuditWriteException extends RuntimeException {

	public AuditWriteException(String message) {
		super(message, null, false, false);
	}

}
