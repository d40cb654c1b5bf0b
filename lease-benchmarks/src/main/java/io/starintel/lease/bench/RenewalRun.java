package io.starintel.lease.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.jspecify.annotations.Nullable;

import io.starintel.lease.job.LeaseLostEvent;
import io.starintel.lease.job.TargetLeased;
import io.starintel.lease.service.LeaseService;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

/**
 * The renewal cost of many held leases (issue 32: 100,000 leases renewed in one JVM for at least 2 minutes with 0
 * losses, at most 20 µs of Redis CPU per lease renewal), through the public path only: a Spring Boot context with the
 * starter's auto-configurations and one bean of ours whose {@code @TargetLeased} method returns a
 * {@link CompletableFuture} that completes only at the end. Each call therefore holds its lease (TTL 30 s, maximum
 * lifetime 1 h) and the starter's renewal scheduler renews it (batched, about every 10 s) for the whole run; losses are
 * counted from the {@link LeaseLostEvent}s the starter publishes. After the measured period every future is completed,
 * so the aspect releases every lease.
 *
 * <p>Reports renewals and their rate, losses, renewal lag, CPU by thread group and of the process, and from the
 * private Redis ({@code INFO cpu}, {@code INFO commandstats}): CPU per lease renewal, commands per renewal by command,
 * memory; with a replica, its CPU too. Writes {@code ${bench.out}/renewal.md}. Run by
 * {@code bash scripts/bench.sh --renewal}; system properties {@code bench.leases} (100000), {@code bench.seconds}
 * (120), {@code bench.acquirers} (4 threads), {@code bench.audit} ({@code true}: the starter's default audit sinks, a
 * log line and an application event per renewal; {@code false}: {@code starintel.lease.audit.enabled=false}).
 */
public final class RenewalRun {

	private RenewalRun() {
	}

	public static void main(String[] args) throws Exception {
		int leases = Integer.getInteger("bench.leases", 100_000);
		int seconds = Integer.getInteger("bench.seconds", 120);
		int acquirers = Integer.getInteger("bench.acquirers", 4);
		boolean audit = Boolean.parseBoolean(System.getProperty("bench.audit", "true"));
		Path out = Path.of(System.getProperty("bench.out", "target/bench"));
		Files.createDirectories(out);
		BenchRedis redis = BenchRedis.fromEnvironment();
		BenchTransport.apply();
		String program = "renewal-" + Long.toString(ThreadLocalRandom.current().nextLong() >>> 24, 36);
		Map<String, Object> properties = StarterLibrary.properties(redis, program);
		properties.put("starintel.lease.limits.max-active-leases-per-program", Integer.toString(2 * leases));
		if (!audit) {
			properties.put("starintel.lease.audit.enabled", "false");
		}
		List<String> report = new ArrayList<>();
		report.add("## Renewal of " + String.format(Locale.ROOT, "%,d", leases) + " held leases");
		report.add("");
		report.add("- date " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + ", commit " + InterleavedRun.commit()
				+ ", load average before: " + InterleavedRun.loadAverage());
		try (RedisCounters server = new RedisCounters(redis);
				ConfigurableApplicationContext context = StarterLibrary.run(properties, RenewalApplication.class)) {
			BenchRedis replicaServer = redis.replicaServer();
			RedisCounters replica = (replicaServer != null) ? new RedisCounters(replicaServer) : null;
			report.add("- " + Runtime.getRuntime().availableProcessors() + " cores, Java "
					+ System.getProperty("java.version") + ", Redis " + server.version() + " at " + redis.url()
					+ ((replica != null) ? " with a replica at " + redis.replicaUrl() + " (the store waits for it)" : "")
					+ "; program " + program + "; audit " + (audit ? "on (the starter's default sinks)" : "off"));
			// the server's own CPU with the application connected but no lease held (its cron, the sweeper, the
			// store's replica checks): per second, subtracted below, which matters only for small runs
			RedisCounters.Snapshot idleBefore = server.snapshot();
			long idleStart = System.nanoTime();
			Thread.sleep(5_000);
			double idlePerSecond = (server.snapshot().cpuSeconds() - idleBefore.cpuSeconds())
					/ ((System.nanoTime() - idleStart) / 1e9);
			HeldLeases held = context.getBean(HeldLeases.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			AtomicLong lost = context.getBean(RenewalApplication.class).lost;
			List<CompletableFuture<Void>> ends = new ArrayList<>(leases);
			List<CompletableFuture<?>> jobs = new ArrayList<>(leases);
			for (int i = 0; i < leases; i++) {
				ends.add(new CompletableFuture<>());
				jobs.add(null);
			}
			long acquireStart = System.nanoTime();
			ExecutorService pool = Executors.newFixedThreadPool(acquirers);
			try {
				List<Future<?>> parts = new ArrayList<>();
				for (int part = 0; part < acquirers; part++) {
					int first = part;
					parts.add(pool.submit(() -> {
						for (int i = first; i < leases; i += acquirers) {
							CompletableFuture<?> job = held.hold("target_" + i, ends.get(i));
							if (job == null) {
								throw new IllegalStateException("target_" + i + " was skipped: its lease is held");
							}
							jobs.set(i, job);
						}
						return null;
					}));
				}
				for (Future<?> part : parts) {
					part.get();
				}
			}
			finally {
				pool.shutdown();
			}
			double acquireSeconds = (System.nanoTime() - acquireStart) / 1e9;
			print(report, "acquired %,d leases in %.1f s (%,.0f/s on %d threads)", leases, acquireSeconds,
					leases / acquireSeconds, acquirers);
			long lostBefore = lost.get();
			Map<String, long[]> threadsBefore = threadCpu();
			long processBefore = processCpu();
			RedisCounters.Snapshot serverBefore = server.snapshot();
			RedisCounters.Snapshot replicaBefore = (replica != null) ? replica.snapshot() : null;
			long renewedBefore = count(meters, "renew", "lease_renewed");
			long renewAttemptsBefore = count(meters, "renew", null);
			long start = System.nanoTime();
			Thread.sleep(seconds * 1000L); // the measured period: the starter's scheduler renews in the background
			double wall = (System.nanoTime() - start) / 1e9;
			long renewed = count(meters, "renew", "lease_renewed") - renewedBefore;
			long renewAttempts = count(meters, "renew", null) - renewAttemptsBefore;
			RedisCounters.Snapshot serverAfter = server.snapshot();
			double replicaCpu = (replica != null && replicaBefore != null)
					? replica.snapshot().cpuSeconds() - replicaBefore.cpuSeconds() : Double.NaN;
			long process = processCpu() - processBefore;
			Map<String, long[]> threadsAfter = threadCpu();
			long lostInPeriod = lost.get() - lostBefore;
			double redisCpu = serverAfter.cpuSeconds() - serverBefore.cpuSeconds();
			Map<String, Long> commands = serverAfter.callsSince(serverBefore);
			long commandCount = RedisCounters.clientCommands(commands);
			print(report, "period %.1f s: renewals %,d (%,.0f/s; %,d renew calls answered other than lease_renewed), "
					+ "lost %d (during acquisition %d), held %,d", wall, renewed, renewed / wall, renewAttempts - renewed,
					lostInPeriod, lostBefore, heldCount(meters));
			Timer lag = meters.find(LAG_TIMER).timer();
			if (lag != null) {
				double p50 = Double.NaN;
				double p99 = Double.NaN;
				for (ValueAtPercentile value : lag.takeSnapshot().percentileValues()) {
					if (value.percentile() == 0.5) {
						p50 = value.value(TimeUnit.MILLISECONDS);
					}
					else if (value.percentile() == 0.99) {
						p99 = value.value(TimeUnit.MILLISECONDS);
					}
				}
				print(report, "renewal lag (the last ~2 minutes) p50 %.1f ms, p99 %.1f ms, max %.1f ms", p50, p99,
						lag.max(TimeUnit.MILLISECONDS));
			}
			print(report, "**Redis CPU %.2f s (%.1f%% of one core): %.1f µs per lease renewal** (%.1f µs net of the "
					+ "server's idle %.1f ms/s, measured for 5 s with no lease held); %,d commands, %.2f per renewal (%s)",
					redisCpu, 100 * redisCpu / wall, (renewed > 0) ? redisCpu * 1e6 / renewed : Double.NaN,
					(renewed > 0) ? (redisCpu - idlePerSecond * wall) * 1e6 / renewed : Double.NaN, idlePerSecond * 1e3,
					commandCount, (renewed > 0) ? (double) commandCount / renewed : Double.NaN,
					perRenewal(commands, renewed));
			if (replica != null) {
				print(report, "replica CPU %.2f s: %.1f µs per lease renewal", replicaCpu,
						(renewed > 0) ? replicaCpu * 1e6 / renewed : Double.NaN);
			}
			print(report, "client: process CPU %.2f s (%.1f%% of one core), %.1f µs per renewal; by thread group: %s",
					process / 1e9, 100 * process / 1e9 / wall, (renewed > 0) ? process / 1e3 / renewed : Double.NaN,
					threadGroups(threadsBefore, threadsAfter, renewed));
			print(report, "Redis used_memory %s", server.memory());
			io.starintel.lease.audit.internal.AsyncAuditPipeline pipeline = StarterLibrary.auditPipeline(context);
			if (pipeline != null) {
				print(report, "audit pipeline: %,d events delivered, %,d dropped (queue full) since the start",
						pipeline.deliveredCount(), pipeline.droppedCount());
			}
			long releasedBefore = count(meters, "release", "lease_released");
			long releaseStart = System.nanoTime();
			ExecutorService releasers = Executors.newFixedThreadPool(acquirers);
			try {
				List<Future<?>> parts = new ArrayList<>();
				for (int part = 0; part < acquirers; part++) {
					int first = part;
					parts.add(releasers.submit(() -> {
						for (int i = first; i < leases; i += acquirers) {
							ends.get(i).complete(null); // the aspect releases the lease on this thread
							jobs.get(i).join();
						}
						return null;
					}));
				}
				for (Future<?> part : parts) {
					part.get();
				}
			}
			finally {
				releasers.shutdown();
			}
			print(report, "released %,d of %,d in %.1f s; lost in all %d", count(meters, "release", "lease_released")
					- releasedBefore, leases, (System.nanoTime() - releaseStart) / 1e9, lost.get());
			report.add("- load average after: " + InterleavedRun.loadAverage());
			if (replica != null) {
				replica.close();
			}
		}
		Files.write(out.resolve("renewal.md"), report, StandardCharsets.UTF_8);
	}

	private static final String LAG_TIMER = "starintel.lease.renewal.lag";

	private static void print(List<String> report, String format, Object... args) {
		String line = String.format(Locale.ROOT, format, args);
		System.out.println(line.replace("**", ""));
		report.add("- " + line);
	}

	/** Calls of the operation timer with the given operation (and code, or any). */
	private static long count(MeterRegistry meters, String operation, @Nullable String code) {
		Search search = meters.find(LeaseService.OPERATION_TIMER).tag("operation", operation);
		if (code != null) {
			search = search.tag("code", code);
		}
		return search.timers().stream().mapToLong(Timer::count).sum();
	}

	private static long heldCount(MeterRegistry meters) {
		io.micrometer.core.instrument.Gauge gauge = meters.find("starintel.lease.held").gauge();
		return (gauge != null) ? (long) gauge.value() : -1;
	}

	private static String perRenewal(Map<String, Long> commands, long renewed) {
		List<String> parts = new ArrayList<>();
		commands.forEach((name, n) -> parts.add(name + " " + String.format(Locale.ROOT, "%.2f", (double) n / renewed)));
		return String.join(", ", parts);
	}

	private static long processCpu() {
		return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
	}

	/** CPU nanos by thread group (the thread name without its numbers). */
	private static Map<String, long[]> threadCpu() {
		java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		Map<String, long[]> groups = new TreeMap<>();
		for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
			if (info != null) {
				groups.computeIfAbsent(info.getThreadName().replaceAll("\\d+", "#"), (k) -> new long[1])[0] += Math
					.max(0, threads.getThreadCpuTime(info.getThreadId()));
			}
		}
		return groups;
	}

	private static String threadGroups(Map<String, long[]> before, Map<String, long[]> after, long renewed) {
		List<String> parts = new ArrayList<>();
		after.forEach((group, cpu) -> {
			double micros = (cpu[0] - before.getOrDefault(group, new long[1])[0]) / 1e3 / Math.max(1, renewed);
			if (micros >= 0.5) {
				parts.add(String.format(Locale.ROOT, "%s %.1f µs", group, micros));
			}
		});
		return String.join(", ", parts);
	}

	/** The application: auto-configuration, the leased bean, a meter registry with the lag's percentiles, the loss count. */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class RenewalApplication {

		final AtomicLong lost = new AtomicLong();

		@Bean
		HeldLeases heldLeases() {
			return new HeldLeases();
		}

		@Bean
		SimpleMeterRegistry meterRegistry() {
			SimpleMeterRegistry registry = new SimpleMeterRegistry();
			registry.config().meterFilter(new MeterFilter() {
				@Override
				public DistributionStatisticConfig configure(io.micrometer.core.instrument.Meter.Id id,
						DistributionStatisticConfig config) {
					if (id.getName().equals(LAG_TIMER)) {
						return DistributionStatisticConfig.builder().percentiles(0.5, 0.99).build().merge(config);
					}
					return config;
				}
			});
			return registry;
		}

		@EventListener
		void onLost(LeaseLostEvent event) {
			this.lost.incrementAndGet();
		}

	}

	/** Leased jobs that keep their lease until the run completes their future. */
	public static class HeldLeases {

		/**
		 * Holds the target's lease until {@code until} completes.
		 * @param target the target id
		 * @param until completed by the run at its end
		 * @return the job's stage (the aspect's: it completes after the release), or null when skipped
		 */
		@TargetLeased(target = "#target", actor = "usernamegen", ttl = "30s", maxLifetime = "1h")
		public @Nullable CompletableFuture<Void> hold(String target, CompletableFuture<Void> until) {
			return until;
		}

	}

}
