package io.starintel.lease.job.internal;

import java.time.Duration;
import java.util.Objects;

import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.job.CancellationMode;
import io.starintel.lease.job.TargetLeased;

/**
 * Trusted, configuration-sourced settings of leased jobs.
 *
 * @param tenantId tenant of every identity (contract: never from method arguments)
 * @param programId program of every identity (contract: never from method arguments)
 * @param operationClasses the closed set of operation classes
 * @param maximumWait server cap on {@link TargetLeased#waitFor()}
 * @param cancellation how a job is cancelled on lease loss
 */
public record JobSettings(String tenantId, String programId, OperationClasses operationClasses, Duration maximumWait,
		CancellationMode cancellation) {

	/** Checks presence. */
	public JobSettings {
		Objects.requireNonNull(tenantId, "tenantId");
		Objects.requireNonNull(programId, "programId");
		Objects.requireNonNull(operationClasses, "operationClasses");
		Objects.requireNonNull(maximumWait, "maximumWait");
		Objects.requireNonNull(cancellation, "cancellation");
	}

}
