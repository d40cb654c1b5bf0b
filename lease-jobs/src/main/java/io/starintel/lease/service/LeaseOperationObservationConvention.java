package io.starintel.lease.service;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** An {@link ObservationConvention} of the lease operations ({@link LeaseService#setObservationConvention}). */
public interface LeaseOperationObservationConvention extends ObservationConvention<LeaseOperationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof LeaseOperationContext;
	}

}
