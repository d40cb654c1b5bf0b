package io.starintel.lease.core;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The programs a store may hold leases in, for the expiry sweeper: every program with a lease operation recently
 * enough that one of its leases may still be active or due (the Redis store keeps a registry of them, forgetting a
 * program once its leases must all have ended; the in-memory store knows its leases).
 *
 * @param status the typed outcome of the call
 * @param programs the programs, most recently active first, at most the requested limit
 * @param total how many programs the store knows (may exceed the list when it was limited)
 * @param decidedAt backend time of the answer, {@code null} when no backend answered
 */
public record ActivePrograms(Status status, List<ProgramScope> programs, long total, @Nullable Instant decidedAt) {

	/** The outcome of the call. */
	public enum Status {

		/** The list is the store's answer. */
		LISTED,
		/** The deadline passed before the backend answered. */
		DEADLINE_EXCEEDED,
		/** The backend could not be reached or did not answer. */
		BACKEND_UNAVAILABLE,
		/** The store keeps no such list: sweep the configured programs only. */
		NOT_SUPPORTED

	}

	/** Copies the list. */
	public ActivePrograms {
		programs = List.copyOf(programs);
	}

	/** No list, with a failure status. */
	public static ActivePrograms failure(Status status) {
		return new ActivePrograms(status, List.of(), 0, null);
	}

}
