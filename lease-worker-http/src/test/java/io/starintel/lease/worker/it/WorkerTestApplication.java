package io.starintel.lease.worker.it;

import java.util.UUID;

import io.starintel.lease.test.RedisContainerConnection;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * A small application for the worker API's HTTP tests: the auto-configured Redis store on real Redis (a container
 * through {@code @ServiceConnection} when the run uses containers, {@link RedisContainerConnection}; else
 * {@code STARINTEL_REDIS_URL}, default redis://127.0.0.1:6379), and worker credentials in a random program per test
 * class.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = { WorkerTestApplication.SECURITY, WorkerTestApplication.WEB_SECURITY,
		WorkerTestApplication.SECURITY_FILTER, WorkerTestApplication.USER_DETAILS })
@Import(RedisContainerConnection.class)
public class WorkerTestApplication {

	// the worker API without Spring Security, as the module needs it (Spring Security is on the test class path for
	// WorkerApiBehindSpringSecurityTests only)
	static final String SECURITY = "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration";

	static final String WEB_SECURITY =
			"org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration";

	static final String SECURITY_FILTER =
			"org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration";

	static final String USER_DETAILS = "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration";

	static final String TENANT = "tenant-worker-tests";

	static final String SECRET_A = "secret-a-" + UUID.randomUUID();

	static final String SECRET_B = "secret-b-" + UUID.randomUUID();

	static final String SECRET_READER = "secret-r-" + UUID.randomUUID();

	static final String SECRET_NARROW = "secret-n-" + UUID.randomUUID();

	static final String SECRET_A2 = "secret-a2-" + UUID.randomUUID();

	/**
	 * Registers the credentials of workers a, b, a read-only worker, one limited to actor {@code other} and a second
	 * credential of worker a's principal ({@code key_worker_a2}, as during a key rotation).
	 */
	static String register(DynamicPropertyRegistry registry) {
		String program = "p-" + UUID.randomUUID().toString().substring(0, 8);
		BCryptPasswordEncoder bcrypt = new BCryptPasswordEncoder(4);
		String[][] credentials = { { "prn_worker_a", "key_worker_a", SECRET_A, "targets:lease", "" },
				{ "prn_worker_b", "key_worker_b", SECRET_B, "targets:lease", "" },
				{ "prn_reader", "key_reader", SECRET_READER, "targets:read", "" },
				{ "prn_narrow", "key_narrow", SECRET_NARROW, "targets:lease", "other" },
				{ "prn_worker_a", "key_worker_a2", SECRET_A2, "targets:lease", "" } };
		for (int i = 0; i < credentials.length; i++) {
			String[] c = credentials[i];
			String prefix = "starintel.lease.worker-http.credentials[" + i + "].";
			registry.add(prefix + "principal", () -> c[0]);
			registry.add(prefix + "credential-id", () -> c[1]);
			registry.add(prefix + "secret-hash", () -> "{bcrypt}" + bcrypt.encode(c[2]));
			registry.add(prefix + "capabilities", () -> c[3]);
			registry.add(prefix + "tenant", () -> TENANT);
			registry.add(prefix + "program", () -> program);
			if (!c[4].isEmpty()) {
				registry.add(prefix + "actors", () -> c[4]);
			}
		}
		return program;
	}

}
