package io.starintel.lease.it.failover;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.it.failover.FailoverEvent.Op;
import io.starintel.lease.store.redis.RedisLeaseStore;

import static org.awaitility.Awaitility.await;

/**
 * One run of the failover load harness: starts the worker JVMs ({@link FailoverLoadWorker}), records the faults the
 * test injects ({@link #fault}), stops the workers, resolves after the run a sample of the mutations acknowledged
 * around each fault ({@link Op#CHECK_RESOLVE}) and checks the whole history ({@link FailoverHistoryChecker}). Its
 * files (worker properties, logs, histories, the report) stay in {@code target/failover-load/<name>/}.
 */
final class FailoverLoadRun implements AutoCloseable {

	/** Acknowledged mutations this long before a fault's start (and until its end + 1 s) are resolved afterwards. */
	private static final Duration AT_RISK = Duration.ofSeconds(2);

	private static final int CHECKS_PER_FAULT = 400;

	private final String name;

	private final Path directory;

	private final List<Process> workers = new ArrayList<>();

	private final List<FailoverEvent> events = Collections.synchronizedList(new ArrayList<>());

	private long started = System.nanoTime();

	private long seq;

	private final Thread shutdownHook = new Thread(this::close, "failover-load-workers-shutdown");

	FailoverLoadRun(String name) {
		this.name = name;
		this.directory = Path.of("target", "failover-load", name).toAbsolutePath();
		FixtureFiles.delete(this.directory);
		try {
			Files.createDirectories(this.directory);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Runtime.getRuntime().addShutdownHook(this.shutdownHook);
	}

	Path directory() {
		return this.directory;
	}

	/**
	 * Starts {@code count} worker JVMs with {@code threads} holder threads each (worker 0 also runs the admin) over
	 * {@code targets} targets of each program, on the given topology properties ({@code mode} and its addresses),
	 * and waits until every one has warmed up.
	 */
	void startWorkers(int count, int threads, List<String> programs, int targets, Map<String, String> topology,
			Duration maximum) {
		String java = ProcessHandle.current().info().command().orElse("java");
		String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		for (int i = 0; i < count; i++) {
			String worker = "w" + i;
			Properties properties = new Properties();
			properties.putAll(topology);
			properties.setProperty("worker", worker);
			properties.setProperty("programs", String.join(",", programs));
			properties.setProperty("targets", Integer.toString(targets));
			properties.setProperty("threads", Integer.toString(threads));
			properties.setProperty("admin", Boolean.toString(i == 0));
			properties.setProperty("history", file(worker + ".history").toString());
			properties.setProperty("ready", file(worker + ".ready").toString());
			properties.setProperty("stop", file("stop").toString());
			properties.setProperty("max.seconds", Long.toString(maximum.toSeconds()));
			properties.setProperty("parent.pid", Long.toString(ProcessHandle.current().pid()));
			Path config = file(worker + ".properties");
			try (Writer writer = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
				properties.store(writer, "failover load worker " + worker);
				ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
						"-XX:+UseSerialGC", "-cp", classpath, FailoverLoadWorker.class.getName(), config.toString())
					.redirectErrorStream(true)
					.redirectOutput(file(worker + ".log").toFile())
					.directory(new File(System.getProperty("java.io.tmpdir")));
				this.workers.add(builder.start());
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		await("workers warmed up").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
			for (int i = 0; i < count; i++) {
				if (!this.workers.get(i).isAlive()) {
					throw new IllegalStateException("worker w" + i + " exited: " + log("w" + i));
				}
				if (!Files.exists(file("w" + i + ".ready"))) {
					return false;
				}
			}
			return true;
		});
		this.started = System.nanoTime();
	}

	/** Runs a fault and records it (its name, start and end) in the history. */
	void fault(String description, Runnable action) {
		long start = System.nanoTime();
		try {
			action.run();
		}
		finally {
			this.events.add(new FailoverEvent("harness", this.seq++, Op.FAULT, description.replace('\t', ' '),
					FailoverEvent.NONE, FailoverEvent.NONE, FailoverEvent.NONE, -1, FailoverEvent.NONE,
					FailoverEvent.NONE, start, System.nanoTime(), -1, -1, FailoverEvent.NONE));
			System.out.printf("[%s] %6.1f s: %s (%d ms)%n", this.name, (start - this.started) / 1e9, description,
					(System.nanoTime() - start) / 1_000_000);
		}
	}

	/** Seconds since the load started (every worker warmed up). */
	double elapsedSeconds() {
		return (System.nanoTime() - this.started) / 1e9;
	}

	/** Asks the workers to stop and waits (bounded) until they have exited. */
	void stopWorkers() {
		try {
			Files.writeString(file("stop"), "stop");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		for (Process worker : this.workers) {
			try {
				if (!worker.waitFor(60, TimeUnit.SECONDS)) {
					worker.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				worker.destroyForcibly();
			}
		}
	}

	/** Every worker's history plus the faults and checks recorded here. */
	List<FailoverEvent> history() {
		List<FailoverEvent> history = new ArrayList<>();
		for (int i = 0; i < this.workers.size(); i++) {
			Path file = file("w" + i + ".history");
			if (Files.exists(file)) {
				history.addAll(HistoryWriter.read(file));
			}
		}
		history.addAll(this.events);
		return history;
	}

	/**
	 * Resolves (by request id, on {@code store}, i.e. the topology as it is after the run) the mutations that were
	 * acknowledged from 2 s before each fault's start until 1 s after its end, at most 400 per fault, and records
	 * each answer as a {@link Op#CHECK_RESOLVE}.
	 */
	void resolveAtRisk(RedisLeaseStore store, List<FailoverEvent> history) {
		List<FailoverEvent> faults = history.stream().filter((e) -> e.op() == Op.FAULT).toList();
		List<FailoverEvent> acknowledged = history.stream()
			.filter((e) -> (e.op() == Op.ACQUIRE || e.op() == Op.RENEW || e.op() == Op.RELEASE || e.op() == Op.REVOKE
					|| e.op() == Op.RESOLVE) && e.success())
			.toList();
		for (FailoverEvent fault : faults) {
			long from = fault.invokeNanos() - AT_RISK.toNanos();
			long until = fault.ackNanos() + Duration.ofSeconds(1).toNanos();
			List<FailoverEvent> atRisk = acknowledged.stream()
				.filter((e) -> e.ackNanos() >= from && e.ackNanos() <= until)
				.toList();
			int step = Math.max(1, atRisk.size() / CHECKS_PER_FAULT);
			for (int i = 0; i < atRisk.size(); i += step) {
				FailoverEvent original = atRisk.get(i);
				LeaseResult answer = resolve(store, original);
				this.events.add(new FailoverEvent("harness", this.seq++, Op.CHECK_RESOLVE, original.target(),
						original.requestId(), original.principal(),
						(answer.lease() != null) ? answer.lease().leaseId() : FailoverEvent.NONE,
						(answer.lease() != null) ? answer.lease().fencingToken() : -1, answer.code().wireName(),
						answer.reason().wireName(), System.nanoTime(), System.nanoTime(), -1, -1,
						original.effectiveOp().name()));
			}
		}
	}

	private static LeaseResult resolve(RedisLeaseStore store, FailoverEvent original) {
		String[] target = original.target().split(":", 2);
		LockIdentity identity = FailoverRequests.identity(target[0], target[1]);
		Operation operation = Operation.fromWireName(original.effectiveOp().operation());
		LeaseResult answer = null;
		for (int attempt = 0; attempt < 5; attempt++) {
			answer = store.resolve(new ResolveRequest(operation, identity, original.principal(), original.requestId(),
					FailoverRequests.in(Duration.ofSeconds(2))));
			if (answer.code() != ResultCode.LEASE_BACKEND_UNAVAILABLE
					&& answer.code() != ResultCode.LEASE_OUTCOME_UNKNOWN) {
				break;
			}
			sleep(300);
		}
		return answer;
	}

	/**
	 * Fails when the report has violations: their count by rule and the first few, pointing at the full report
	 * (printed, and in {@code report.txt}).
	 */
	void assertNoViolations(FailoverHistoryChecker.Report report) {
		if (report.violations().isEmpty()) {
			return;
		}
		Map<String, Long> byRule = new java.util.TreeMap<>();
		report.violations().forEach((v) -> byRule.merge(v.rule(), 1L, Long::sum));
		StringBuilder message = new StringBuilder(report.violations().size() + " violations " + byRule
				+ " (the full report is printed above and in " + file("report.txt") + "); first ones:");
		report.violations().stream().limit(5).forEach((v) -> message.append("\n  ").append(v));
		throw new AssertionError(message.toString());
	}

	/** Checks the history, writes the report next to the histories, prints it, and returns it. */
	FailoverHistoryChecker.Report check(List<FailoverEvent> history) {
		FailoverHistoryChecker.Report report = FailoverHistoryChecker.check(history);
		StringBuilder text = new StringBuilder("== failover load " + this.name + " ("
				+ String.format("%.0f", elapsedSeconds()) + " s, files in " + this.directory + ")\nfaults:\n");
		history.stream()
			.filter((e) -> e.op() == Op.FAULT)
			.sorted(java.util.Comparator.comparingLong(FailoverEvent::invokeNanos))
			.forEach((e) -> text.append(String.format("  %6.1f s  %5d ms  %s%n", (e.invokeNanos() - this.started) / 1e9,
					(e.ackNanos() - e.invokeNanos()) / 1_000_000, e.target())));
		text.append(report.text());
		try {
			Files.writeString(file("report.txt"), text, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		System.out.println(text);
		return report;
	}

	private Path file(String name) {
		return this.directory.resolve(name);
	}

	private String log(String worker) {
		try {
			return Files.readString(file(worker + ".log"));
		}
		catch (IOException ex) {
			return "(no log)";
		}
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Kills workers that are still running (after a failed run). */
	@Override
	public void close() {
		try {
			Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
		}
		catch (IllegalStateException ex) {
			// the JVM is shutting down: this is the hook
		}
		for (Process worker : this.workers) {
			if (worker.isAlive()) {
				worker.destroyForcibly();
				try {
					worker.waitFor(10, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}
	}

}
