package io.starintel.lease.job.internal;

import io.starintel.lease.core.internal.Identifiers;

/** The service instance id of this JVM: generated once, used unless {@code starintel.lease.owner.service-instance-id} is set. */
public final class ServiceInstanceId {

	private static final String JVM = Identifiers.generate("instance");

	private ServiceInstanceId() {
	}

	/** The id generated once for this JVM. */
	public static String jvm() {
		return JVM;
	}

}
