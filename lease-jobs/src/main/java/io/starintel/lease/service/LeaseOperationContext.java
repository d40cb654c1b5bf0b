package io.starintel.lease.service;

import java.util.Objects;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.ResultCode;

/** The context of one {@link LeaseObservationDocumentation#LEASE_OPERATION} observation. */
public final class LeaseOperationContext extends Observation.Context {

	private final String operation;

	private final @Nullable String programId;

	private @Nullable ResultCode code;

	LeaseOperationContext(String operation, @Nullable String programId) {
		this.operation = Objects.requireNonNull(operation, "operation");
		this.programId = programId;
	}

	/** The operation ({@code acquire}, {@code renew}, {@code list}, ...). */
	public String operation() {
		return this.operation;
	}

	/** The program id of the request, when it names one. */
	public @Nullable String programId() {
		return this.programId;
	}

	/** The answer's result code; set before the observation stops ({@code null} only while it runs). */
	public @Nullable ResultCode code() {
		return this.code;
	}

	void code(ResultCode code) {
		this.code = code;
	}

}
