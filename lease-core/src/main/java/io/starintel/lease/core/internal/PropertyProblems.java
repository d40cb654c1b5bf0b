package io.starintel.lease.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.LeaseConfigurationException;
import io.starintel.lease.core.LeaseConfigurationException.Problem;

/**
 * The problems found in one group of {@code starintel.lease.*} properties, each naming its property, reported
 * together as one {@link LeaseConfigurationException} (which the starter's failure analyzer turns into one
 * "APPLICATION FAILED TO START" report). Every module that binds a group of properties (the core keys, the admin
 * endpoint, the worker API) checks it through this one type, so that an invalid value never fails start-up with a raw
 * exception from deep inside a bean, and a check never stops at the first problem.
 */
public final class PropertyProblems {

	private final String prefix;

	private final List<Problem> problems = new ArrayList<>();

	/**
	 * An empty list of problems.
	 * @param prefix the group's prefix, with the trailing dot ({@code starintel.lease.admin.}); prepended to each key
	 */
	public PropertyProblems(String prefix) {
		this.prefix = prefix;
	}

	/** The full name of a key of this group. */
	public String property(String key) {
		return this.prefix + key;
	}

	/** Records a problem of a key of this group. */
	public void add(String key, String what) {
		this.problems.add(new Problem(property(key), what));
	}

	/** Records a problem found elsewhere (its {@code where} already a full property name). */
	public void add(Problem problem) {
		this.problems.add(problem);
	}

	/**
	 * Checks that a duration is set and above zero.
	 * @return whether it is (so that checks relating it to other values can run)
	 */
	public boolean positive(String key, @Nullable Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			add(key, "must be a positive duration");
			return false;
		}
		return true;
	}

	/**
	 * Checks that a number lies in {@code [minimum, maximum]}; the message shows the value and the bounds.
	 * @return whether it does
	 */
	public boolean between(String key, double value, long minimum, long maximum) {
		if (!(value >= minimum && value <= maximum)) {
			add(key, "(" + number(value) + ") must be between " + minimum + " and " + maximum);
			return false;
		}
		return true;
	}

	/**
	 * Checks that a number is at least {@code minimum}; the message shows the value and the bound.
	 * @return whether it is
	 */
	public boolean atLeast(String key, long value, long minimum) {
		if (value < minimum) {
			add(key, "(" + value + ") must be at least " + minimum);
			return false;
		}
		return true;
	}

	/**
	 * Checks that a duration of this group is below ({@code strict}) or not above a bound set by another property.
	 * @param key the key of this group
	 * @param value its value (positive)
	 * @param bound the full name of the property that sets the bound
	 * @param boundValue the bound (positive)
	 * @param strict whether the value must be below the bound, not merely not above it
	 * @param why appended to the message (empty, or starting with {@code ": "})
	 */
	public void notAbove(String key, Duration value, String bound, Duration boundValue, boolean strict, String why) {
		int comparison = value.compareTo(boundValue);
		if (strict ? comparison >= 0 : comparison > 0) {
			add(key, "(" + format(value) + ") must " + (strict ? "be below " : "not exceed ") + bound + " ("
					+ format(boundValue) + ")" + why);
		}
	}

	/** Whether no problem was found. */
	public boolean isEmpty() {
		return this.problems.isEmpty();
	}

	/** The problems found, in the order found. */
	public List<Problem> problems() {
		return List.copyOf(this.problems);
	}

	/**
	 * Throws one {@link LeaseConfigurationException} listing every problem found, if there is any.
	 * @param action what the user should do
	 */
	public void throwIfAny(String action) {
		if (!this.problems.isEmpty()) {
			throw new LeaseConfigurationException(this.problems, action);
		}
	}

	/** Formats a duration the way properties are written ({@code 1500ms}, {@code 30s}, {@code 5m}). */
	public static String format(Duration value) {
		long ms = value.toMillis();
		if (ms % 60_000 == 0 && ms > 0) {
			return (ms / 60_000) + "m";
		}
		if (ms % 1000 == 0 && ms > 0) {
			return (ms / 1000) + "s";
		}
		return ms + "ms";
	}

	private static String number(double value) {
		return (value == Math.rint(value) && Math.abs(value) < 1e15) ? Long.toString((long) value)
				: Double.toString(value);
	}

}
