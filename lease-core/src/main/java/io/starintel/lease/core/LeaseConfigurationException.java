package io.starintel.lease.core;

import java.util.List;
import java.util.Objects;

/**
 * Invalid configuration of the lease library found at start-up: every problem found at once, each naming what is
 * wrong and where (a property, or a bean method and annotation attribute), plus what to do about it. Spring Boot
 * applications see it as one "APPLICATION FAILED TO START" report (the starter's failure analyzer).
 */
public class LeaseConfigurationException extends IllegalArgumentException {

	private final List<Problem> problems;

	private final String action;

	/** A failure listing the given problems (at least one) and the action that fixes them. */
	public LeaseConfigurationException(List<Problem> problems, String action) {
		super(message(problems));
		this.problems = List.copyOf(problems);
		this.action = Objects.requireNonNull(action, "action");
	}

	private static String message(List<Problem> problems) {
		if (problems.isEmpty()) {
			throw new IllegalArgumentException("no problem to report");
		}
		StringBuilder out = new StringBuilder();
		for (Problem problem : problems) {
			out.append((out.length() > 0) ? "; " : "").append(problem.where()).append(' ').append(problem.what());
		}
		return out.toString();
	}

	/** Every problem found, in the order found. */
	public List<Problem> problems() {
		return this.problems;
	}

	/** What the user should do. */
	public String action() {
		return this.action;
	}

	/**
	 * One configuration problem.
	 * @param where the property ({@code starintel.lease.tenant}) or bean method and attribute
	 * @param what what is wrong, with the offending value and the bounds where there are any (never a secret)
	 */
	public record Problem(String where, String what) {

		/** Checks presence. */
		public Problem {
			Objects.requireNonNull(where, "where");
			Objects.requireNonNull(what, "what");
		}

	}

}
