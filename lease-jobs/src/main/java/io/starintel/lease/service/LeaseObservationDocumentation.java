package io.starintel.lease.service;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of the {@link LeaseService}: one {@value LeaseService#OBSERVATION} observation per store
 * operation. With Micrometer's meter handler (Spring Boot registers it) each becomes the timer
 * {@value LeaseService#OPERATION_TIMER} tagged by its low-cardinality keys plus the handler's {@code error}: the
 * simple class name of the observation's error, which is what the store threw (set by the service before the stop,
 * {@code none} when the store answered); there is no other meter of that name.
 */
public enum LeaseObservationDocumentation implements ObservationDocumentation {

	/** One lease store operation (acquire, renew, release, inspect, list, authorize_commit, attach_put, ...). */
	LEASE_OPERATION {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultLeaseOperationObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

	};

	/** The low-cardinality keys: never a lock key, target id, lease id or secret. */
	public enum LowCardinalityKeyNames implements KeyName {

		/** The operation ({@code acquire}, {@code renew}, {@code list}, ...). */
		OPERATION {
			@Override
			public String asString() {
				return "operation";
			}
		},

		/** The result code's wire name ({@code lease_acquired}, {@code lease_conflict}, ...), set before the stop. */
		CODE {
			@Override
			public String asString() {
				return "code";
			}
		},

		/**
		 * The program id of the request; opt-in ({@code new DefaultLeaseOperationObservationConvention(true)}, in
		 * Spring Boot {@code starintel.lease.observation.program-tag=true}): one series per program.
		 */
		PROGRAM {
			@Override
			public String asString() {
				return "program";
			}

			@Override
			public boolean isRequired() {
				return false;
			}
		}

	}

}
