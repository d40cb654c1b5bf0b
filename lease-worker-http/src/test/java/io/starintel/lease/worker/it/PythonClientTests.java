package io.starintel.lease.worker.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Python client's own tests ({@code clients/python/test_lease_worker.py}, standard library {@code unittest}):
 * {@code LeaseClient} against a fake HTTP server (a waiting acquire answered after the client's timeout but before its
 * deadline, broken answers as typed replies retried with the same {@code request_id}, a trickled or silent answer
 * bounded by the deadline). The transcript is written to {@code target/python-client-tests.log}.
 */
class PythonClientTests {

	static final Path CLIENT = Path.of("..", "clients", "python").toAbsolutePath().normalize();

	@Test
	void thePythonClientsUnitTestsPass() throws IOException, InterruptedException {
		assertThat(Files.isRegularFile(CLIENT.resolve("test_lease_worker.py"))).as(CLIENT.toString()).isTrue();
		Path log = Path.of("target", "python-client-tests.log");
		Files.createDirectories(log.getParent());
		Process process = new ProcessBuilder("python3", "-m", "unittest", "-v", "test_lease_worker")
			.directory(CLIENT.toFile())
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		boolean exited = process.waitFor(5, TimeUnit.MINUTES);
		if (!exited) {
			process.destroyForcibly();
		}
		String transcript = Files.readString(log, StandardCharsets.UTF_8);
		assertThat(exited).as(transcript).isTrue();
		assertThat(process.exitValue()).as(transcript).isZero();
		assertThat(transcript).contains("OK");
	}

}
