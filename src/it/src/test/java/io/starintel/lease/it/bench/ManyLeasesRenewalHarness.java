package io.starintel.lease.it.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.starintel.lease.core.Identifiers;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.it.redis.RedisServers;
import io.starintel.lease.job.LeaseContext;
import io.starintel.lease.job.LeaseRenewalScheduler;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.redis.RedisLeaseStore;

/**
 * Benchmark harness (not a test): one JVM holding N leases (default 10,000) with TTL 30 s against the local Redis,
 * renewed by the shared scheduler for a while; reports renewals, losses, renewal lag and the CPU time of the
 * renewal threads. Uses its own random program id and releases every lease at the end.
 *
 * <p>Run with {@code java -cp <test classpath> io.starintel.lease.it.bench.ManyLeasesRenewalHarness [leases]
 * [seconds]}.
 */
public final class ManyLeasesRenewalHarness {

	public static void main(String[] args) throws Exception {
		int leases = (args.length > 0) ? Integer.parseInt(args[0]) : 10_000;
		int seconds = (args.length > 1) ? Integer.parseInt(args[1]) : 45;
		String program = "program-bench-" + Identifiers.generate("p").substring(2, 12).toLowerCase();
		LettuceConnectionFactory factory = RedisServers.factory();
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		LeaseService service = new LeaseService(new RedisLeaseStore(factory, RedisServers.POLICY, LeaseAlerts.LOG),
				Clock.systemUTC(), Duration.ofSeconds(5), meters, ObservationRegistry.NOOP);
		AtomicInteger lost = new AtomicInteger();
		LeaseRenewalScheduler scheduler = new LeaseRenewalScheduler(service, Clock.systemUTC(), Duration.ofSeconds(2),
				(event) -> lost.incrementAndGet(), 2);
		Timer lag = Timer.builder("lag").publishPercentiles(0.5, 0.99).register(meters);
		scheduler.setLagRecorder(lag::record);
		LeaseOwner owner = new LeaseOwner("prn_bench", "client_bench", "key_bench", "instance_bench");
		List<LeaseContext> contexts = new ArrayList<>(leases);
		List<LeaseRenewalScheduler.Registration> registrations = new ArrayList<>(leases);
		long acquireStart = System.nanoTime();
		for (int i = 0; i < leases; i++) {
			LockIdentity identity = LockIdentity.of("tenant-bench", program, "starintel-target", "target_" + i,
					"usernamegen", "default", "default");
			LeaseResult result = service.acquire(identity, owner, Duration.ofSeconds(30), Duration.ofHours(1),
					"execution_" + i, "job_bench", "trace_" + i, null);
			if (result.lease() == null) {
				throw new IllegalStateException("acquire failed: " + result.code());
			}
			LeaseContext context = new LeaseContext(result.lease());
			contexts.add(context);
			registrations.add(scheduler.register(context, () -> {
			}));
		}
		System.out.printf("acquired %d leases in %.1f s%n", leases, (System.nanoTime() - acquireStart) / 1e9);
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		long cpuBefore = renewalCpu(threads);
		long processCpuBefore = processCpu();
		long wallStart = System.nanoTime();
		Thread.sleep(seconds * 1000L); // the measured period: the scheduler renews in the background
		double wall = (System.nanoTime() - wallStart) / 1e9;
		long renewalCpu = renewalCpu(threads) - cpuBefore;
		long processCpu = processCpu() - processCpuBefore;
		long renewed = (long) meters.get(LeaseService.OPERATION_TIMER).tag("operation", "renew")
			.tag("code", "lease_renewed").timer().count();
		System.out.printf("period %.1f s: renewals=%d (%.0f/s), lost=%d, held=%d%n", wall, renewed, renewed / wall,
				lost.get(), scheduler.heldCount());
		System.out.printf("renewal lag p50=%.1f ms p99=%.1f ms max=%.1f ms%n",
				lag.takeSnapshot().percentileValues()[0].value(java.util.concurrent.TimeUnit.MILLISECONDS),
				lag.takeSnapshot().percentileValues()[1].value(java.util.concurrent.TimeUnit.MILLISECONDS),
				lag.max(java.util.concurrent.TimeUnit.MILLISECONDS));
		System.out.printf("renewal threads CPU %.2f s (%.1f%% of one core), %.0f us per renewal; process CPU %.2f s%n",
				renewalCpu / 1e9, 100.0 * renewalCpu / 1e9 / wall, (renewed > 0) ? renewalCpu / 1e3 / renewed : 0.0,
				processCpu / 1e9);
		registrations.forEach(LeaseRenewalScheduler.Registration::close);
		int released = 0;
		for (LeaseContext context : contexts) {
			if (service.release(context.handle()).isSuccess()) {
				released++;
			}
		}
		System.out.printf("released %d of %d%n", released, leases);
		scheduler.close();
		factory.destroy();
	}

	private static long renewalCpu(ThreadMXBean threads) {
		long total = 0;
		for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
			if (info != null && info.getThreadName().startsWith("starintel-lease-renewal-")) {
				total += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
			}
		}
		return total;
	}

	private static long processCpu() {
		return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
	}

}
