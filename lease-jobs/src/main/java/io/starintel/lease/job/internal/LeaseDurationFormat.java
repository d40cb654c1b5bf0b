package io.starintel.lease.job.internal;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import io.starintel.lease.core.internal.PropertyProblems;
import io.starintel.lease.job.TargetLeased;

/**
 * Strict parsing of the {@link TargetLeased} duration attributes: a number with a unit ({@code 500ms}, {@code 30s},
 * {@code 5m}, {@code 2h}, {@code 1d}; also {@code ns}, {@code us}) or ISO-8601 ({@code PT30S}). A number without a
 * unit is refused (Spring Boot's lenient style would read {@code "5"} as five milliseconds), and so is a negative
 * value.
 */
public final class LeaseDurationFormat {

	private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ns|us|ms|s|m|h|d)");

	private LeaseDurationFormat() {
	}

	/**
	 * Parses a duration.
	 * @throws IllegalArgumentException naming why the text is not a duration with a unit
	 */
	public static Duration parse(String text) {
		String trimmed = text.trim();
		if (trimmed.matches("\\d+")) {
			throw new IllegalArgumentException("\"" + text + "\" has no unit (write e.g. " + trimmed + "s or "
					+ trimmed + "ms)");
		}
		Matcher simple = SIMPLE.matcher(trimmed.toLowerCase(Locale.ROOT));
		if (simple.matches()) {
			long amount = Long.parseLong(simple.group(1));
			return switch (simple.group(2)) {
				case "ns" -> Duration.ofNanos(amount);
				case "us" -> Duration.ofNanos(Math.multiplyExact(amount, 1000L));
				case "ms" -> Duration.ofMillis(amount);
				case "s" -> Duration.ofSeconds(amount);
				case "m" -> Duration.ofMinutes(amount);
				case "h" -> Duration.ofHours(amount);
				default -> Duration.ofDays(amount);
			};
		}
		if (trimmed.startsWith("P") || trimmed.startsWith("p")) {
			try {
				Duration value = Duration.parse(trimmed);
				if (value.isNegative()) {
					throw new IllegalArgumentException("\"" + text + "\" is negative");
				}
				return value;
			}
			catch (DateTimeParseException ex) {
				// fall through to the common message
			}
		}
		throw new IllegalArgumentException("\"" + text + "\" is not a duration such as 500ms, 30s, 5m or PT30S");
	}

	/** Formats a duration the way the attributes are written ({@code 1500ms}, {@code 30s}, {@code 5m}). */
	public static String format(Duration value) {
		return PropertyProblems.format(value);
	}

}
