package io.starintel.lease.service;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseObservationDocumentation.LowCardinalityKeyNames;

/**
 * The default convention of the lease operations: name {@value LeaseService#OBSERVATION}, low-cardinality keys
 * {@code operation} and {@code code}, and {@code program} only when enabled. The timer's {@code error} tag is not a key
 * of the convention: Micrometer's meter handler derives it from the observation's error (the simple class name of what
 * the store threw, which the service sets before the stop; {@code none} when the store answered).
 */
public class DefaultLeaseOperationObservationConvention implements LeaseOperationObservationConvention {

	private static final KeyValue NO_CODE = KeyValue.of(LowCardinalityKeyNames.CODE, "none");

	private static final KeyValue NO_PROGRAM = KeyValue.of(LowCardinalityKeyNames.PROGRAM, "none");

	private final boolean programTag;

	/** The convention without the {@code program} key. */
	public DefaultLeaseOperationObservationConvention() {
		this(false);
	}

	/**
	 * The convention, with the {@code program} key when {@code programTag} (one series per program).
	 * @param programTag whether to add the request's program id as the {@code program} key
	 */
	public DefaultLeaseOperationObservationConvention(boolean programTag) {
		this.programTag = programTag;
	}

	@Override
	public String getName() {
		return LeaseService.OBSERVATION;
	}

	@Override
	public String getContextualName(LeaseOperationContext context) {
		return "lease " + context.operation();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LeaseOperationContext context) {
		ResultCode code = context.code();
		KeyValues values = KeyValues.of(KeyValue.of(LowCardinalityKeyNames.OPERATION, context.operation()),
				(code != null) ? KeyValue.of(LowCardinalityKeyNames.CODE, code.wireName()) : NO_CODE);
		if (!this.programTag) {
			return values;
		}
		String program = context.programId();
		return values.and((program != null) ? KeyValue.of(LowCardinalityKeyNames.PROGRAM, program) : NO_PROGRAM);
	}

}
