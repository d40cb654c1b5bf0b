package io.starintel.lease.audit.internal;

import java.util.BitSet;

/**
 * A durable audit sink could not persist an event. The message is safe: it never carries a key, a backend name or
 * the backend's error text. A batch that failed in part ({@code recordAll}, e.g. one that went to several cluster
 * primaries) may name the events it did confirm, which the audit pipeline then does not send again.
 */
public class AuditWriteException extends RuntimeException {

	private final BitSet confirmed;

	public AuditWriteException(String message) {
		this(message, new BitSet());
	}

	/**
	 * @param message a safe message
	 * @param confirmed the positions, in the batch handed to {@code recordAll}, of the events that were confirmed
	 */
	public AuditWriteException(String message, BitSet confirmed) {
		super(message, null, false, false);
		this.confirmed = (BitSet) confirmed.clone();
	}

	/** The positions of the batch's events that were confirmed all the same (none unless the sink knows). */
	public BitSet confirmed() {
		return (BitSet) this.confirmed.clone();
	}

}
