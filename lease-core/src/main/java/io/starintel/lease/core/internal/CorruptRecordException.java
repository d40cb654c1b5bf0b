package io.starintel.lease.core.internal;

/**
 * A stored lease record failed strict validation. Contract: corrupt records fail closed; there is no
 * acquisition over ambiguity. The message names the rule that failed, never the stored content.
 */
public class CorruptRecordException extends RuntimeException {

	public CorruptRecordException(String rule) {
		super("corrupt lease record: " + rule, null, false, false);
	}

}
