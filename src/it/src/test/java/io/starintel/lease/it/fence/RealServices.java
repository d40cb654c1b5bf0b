package io.starintel.lease.it.fence;

/**
 * Server endpoints of the fence suites: environment variables first, then the local defaults.
 */
final class RealServices {

	private RealServices() {
	}

	static String env(String name, String fallback) {
		String value = System.getenv(name);
		return (value == null || value.isBlank()) ? fallback : value;
	}

}
