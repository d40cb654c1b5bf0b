package io.starintel.lease.testing;

import java.util.Locale;

import org.testcontainers.DockerClientFactory;

/**
 * The image of a server kind, as the project's suites choose it: {@code -Dstarintel.<kind>.image} or
 * {@code STARINTEL_<KIND>_IMAGE}; else the {@code -local} image this project's CI builds, when the engine has it;
 * else the official image.
 */
final class Images {

	private Images() {
	}

	static String image(String kind, String local, String official) {
		String configured = System.getProperty("starintel." + kind + ".image",
				System.getenv("STARINTEL_" + kind.toUpperCase(Locale.ROOT) + "_IMAGE"));
		if (configured != null && !configured.isBlank()) {
			return configured;
		}
		try {
			DockerClientFactory.instance().client().inspectImageCmd(local).exec();
			return local;
		}
		catch (Throwable ex) {
			return official;
		}
	}

}
