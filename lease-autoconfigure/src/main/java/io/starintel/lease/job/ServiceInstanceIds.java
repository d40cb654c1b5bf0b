package io.starintel.lease.job;

import io.starintel.lease.core.Identifiers;

/** The service instance id of this JVM: generated once, used unless {@code starintel.lease.service-instance-id} is set. */
public final class ServiceInstanceIds {

	private static final String JVM = Identifiers.generate("instance");

	private ServiceInstanceIds() {
	}

	/** The id generated once for this JVM. */
	public static String jvm() {
		return JVM;
	}

}
