package io.starintel.lease.core.internal;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The contract's timestamp of a lease record, {@code yyyy-MM-ddTHH:mm:ss.SSSZ} (UTC, milliseconds), parsed strictly:
 * anything else is a {@link CorruptRecordException}.
 */
final class ContractTime {

	private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
		.withZone(ZoneOffset.UTC);

	private ContractTime() {
	}

	/** Formats a backend timestamp the contract's way (UTC, milliseconds). */
	static String format(Instant instant) {
		return TIME.format(instant);
	}

	/** Parses a contract timestamp. */
	static Instant parse(String text) {
		// fixed format yyyy-MM-ddTHH:mm:ss.SSSZ: positions checked by hand (this runs for every record read)
		if (text == null || text.length() != 24 || text.charAt(4) != '-' || text.charAt(7) != '-'
				|| text.charAt(10) != 'T' || text.charAt(13) != ':' || text.charAt(16) != ':'
				|| text.charAt(19) != '.' || text.charAt(23) != 'Z') {
			throw new CorruptRecordException("timestamp format");
		}
		try {
			return LocalDateTime
				.of(digits(text, 0, 4), digits(text, 5, 7), digits(text, 8, 10), digits(text, 11, 13),
						digits(text, 14, 16), digits(text, 17, 19), digits(text, 20, 23) * 1_000_000)
				.toInstant(ZoneOffset.UTC);
		}
		catch (DateTimeException ex) {
			throw new CorruptRecordException("timestamp format");
		}
	}

	private static int digits(String text, int from, int to) {
		int value = 0;
		for (int i = from; i < to; i++) {
			char c = text.charAt(i);
			if (c < '0' || c > '9') {
				throw new CorruptRecordException("timestamp format");
			}
			value = value * 10 + (c - '0');
		}
		return value;
	}

}
