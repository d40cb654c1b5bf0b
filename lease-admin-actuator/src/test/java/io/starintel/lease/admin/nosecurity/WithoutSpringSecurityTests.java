package io.starintel.lease.admin.nosecurity;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * D8: an application with the admin module and without Spring Security (no {@code spring-boot-starter-security}, no
 * {@code spring-security-*} jar) starts, and the endpoint fails closed: every request it serves is 401
 * {@code invalid_credential}, audited. A {@code FilteredClassLoader} alone cannot show this (the classes it hides are
 * still loadable by the module's own classes, so the start-up failure of a reference to Spring Security never
 * happens): the application runs in a class loader built from this test's class path without the Spring Security
 * jars ({@link WithoutSpringSecurityProbe}), whose context runner also hides {@code org.springframework.security}.
 */
class WithoutSpringSecurityTests {

	/** The jars an application without {@code spring-boot-starter-security} does not have. */
	private static final Pattern SECURITY_JAR = Pattern.compile("spring-(boot-(starter-)?)?security.*\\.jar");

	@Test
	void withoutSpringSecurityTheChainStartsAndEveryRequestIs401Audited() throws Exception {
		List<URL> urls = new ArrayList<>();
		List<String> left = new ArrayList<>();
		for (String entry : classPath()) {
			String name = Path.of(entry).getFileName().toString();
			if (SECURITY_JAR.matcher(name).matches()) {
				left.add(name);
			}
			else {
				urls.add(Path.of(entry).toUri().toURL());
			}
		}
		assertThat(left).as("the Spring Security jars of the test class path").isNotEmpty()
			.anyMatch((name) -> name.startsWith("spring-security-core"));
		String basic = "Basic " + Base64.getEncoder().encodeToString("anyone:secret".getBytes());
		String revoke = "{\"request_id\":\"req-1\",\"lock_identity\":{\"tenant_id\":\"tenant-nosec\","
				+ "\"program_id\":\"program-nosec\",\"target_namespace\":\"ns\",\"target_id\":\"t-1\","
				+ "\"actor_name\":\"actor\",\"workflow_name\":\"default\"},\"lease_id\":\"lease_1\","
				+ "\"fencing_token\":1,\"reason\":\"x\"}";
		List<String[]> requests = List.of(new String[] { "GET", "?tenant_id=tenant-nosec&program_id=program-nosec" },
				new String[] { "GET", "/lease_1?tenant_id=tenant-nosec&program_id=program-nosec" },
				new String[] { "POST", "/revoke", "application/json", revoke },
				new String[] { "POST", "/revoke", "application/json", revoke, basic },
				new String[] { "POST", "/force-release", "text/plain", "x" },
				new String[] { "POST", "/recover", "multipart/form-data; boundary=x", "--x\r\n\r\n--x--" },
				new String[] { "POST", "/unknown", "application/json", "{}" });
		ClassLoader previous = Thread.currentThread().getContextClassLoader();
		try (URLClassLoader isolated = new URLClassLoader(urls.toArray(URL[]::new),
				ClassLoader.getPlatformClassLoader())) {
			assertThatExceptionOfType(ClassNotFoundException.class).isThrownBy(
					() -> isolated.loadClass("org.springframework.security.core.userdetails.UserDetailsService"));
			Thread.currentThread().setContextClassLoader(isolated);
			@SuppressWarnings("unchecked")
			Map<String, String> report = (Map<String, String>) isolated
				.loadClass(WithoutSpringSecurityProbe.class.getName())
				.getMethod("run", List.class)
				.invoke(null, requests);
			assertThat(report).as("start-up").doesNotContainKey("failure");
			assertThat(report.get("beans")).isEqualTo("endpoint=1 operations=1 service=1 failClosed=true");
			for (String[] request : requests) {
				String key = request[0] + " " + request[1];
				assertThat(report.get(key)).as(key)
					.startsWith("401 {\"status\":\"error\",\"code\":\"invalid_credential\"")
					.contains("\"retryable\":false");
				assertThat(report.get(key + " audit")).as(key + " audited once").isEqualTo("invalid_credential anonymous");
			}
		}
		finally {
			Thread.currentThread().setContextClassLoader(previous);
		}
	}

	/** The test class path (Surefire's, or the JVM's). */
	private static List<String> classPath() {
		String path = System.getProperty("surefire.test.class.path");
		if (path == null || path.isBlank()) {
			path = System.getProperty("java.class.path");
		}
		List<String> entries = new ArrayList<>();
		for (String entry : path.split(File.pathSeparator)) {
			if (!entry.isBlank()) {
				entries.add(entry);
			}
		}
		assertThat(entries).as("class path " + path).hasSizeGreaterThan(10);
		return entries;
	}

}
