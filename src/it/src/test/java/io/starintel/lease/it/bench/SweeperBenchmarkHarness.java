package io.starintel.lease.it.bench;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.audit.internal.AsyncAuditPipeline;
import io.starintel.lease.audit.internal.AuditingLeaseStore;
import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.ActiveLeaseLimits;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.it.redis.RedisServers;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.sweep.ExpirySweeper;
import io.starintel.lease.sweep.SweepObserver;

/**
 * Harness (not a test): N leases (default 100,000) of one program whose expiries are spread evenly over a window
 * (default 60 s) are all swept by one {@link ExpirySweeper} with the default settings (interval 1 s, batches from 100,
 * at most 100 calls per program and tick), over the audited store as the starter assembles it (one event per swept
 * lease into the program's audit stream; argument 8 {@code false} sweeps the bare store). Reports the acquisition time, per-tick time (p50/p99/max), the time from the end of the
 * window until the last lease was swept, and the Redis CPU ({@code INFO cpu}, user+sys) and commands used during the
 * sweep phase. Run it against a Redis of its own, or the CPU figure includes other clients.
 *
 * <p>Run with {@code java -cp <test classpath> io.starintel.lease.it.bench.SweeperBenchmarkHarness [leases]
 * [window-seconds] [host:port] [batch-size] [max-batches-per-tick] [lead-seconds] [threads] [audit]}: the window starts
 * lead-seconds after the start (default: 2 ms per lease, at least 30 s), so that every lease is acquired before its
 * planned expiry; leases acquired later than that get a 200 ms TTL and are counted.
 */
public final class SweeperBenchmarkHarness {

	public static void main(String[] args) throws Exception {
		int leases = (args.length > 0) ? Integer.parseInt(args[0]) : 100_000;
		long windowMs = ((args.length > 1) ? Long.parseLong(args[1]) : 60) * 1000;
		String server = (args.length > 2) ? args[2] : "127.0.0.1:6379";
		int batch = (args.length > 3) ? Integer.parseInt(args[3]) : 100;
		int maxBatches = (args.length > 4) ? Integer.parseInt(args[4]) : 100;
		boolean audit = (args.length <= 7) || Boolean.parseBoolean(args[7]);
		String host = server.substring(0, server.indexOf(':'));
		int port = Integer.parseInt(server.substring(server.indexOf(':') + 1));
		LettuceConnectionFactory factory = RedisServers.factory(host, port);
		LeasePolicy policy = RedisServers.POLICY.withActiveLeaseLimits(new ActiveLeaseLimits(10_000_000, Map.of()));
		RedisLeaseStore store = new RedisLeaseStore(factory, policy, LeaseAlerts.LOG);
		String program = "program-sweep-" + Identifiers.generate("p").substring(2, 12).toLowerCase(Locale.ROOT);
		ProgramScope scope = ProgramScope.of("tenant-bench", program);
		LeaseOwner owner = new LeaseOwner("prn_bench", "client_bench", "key_bench", "instance_bench");

		// expiries spread evenly over [t0, t0 + window); t0 leaves time to acquire everything first
		long start = System.currentTimeMillis();
		long t0 = start + ((args.length > 5) ? Long.parseLong(args[5]) * 1000 : Math.max(30_000, leases * 2L));
		int threads = (args.length > 6) ? Integer.parseInt(args[6]) : 4;
		AtomicLong late = new AtomicLong();
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		List<Future<?>> futures = new ArrayList<>();
		for (int w = 0; w < threads; w++) {
			int worker = w;
			futures.add(pool.submit(() -> {
				for (int i = worker; i < leases; i += threads) {
					LockIdentity identity = LockIdentity.of("tenant-bench", program, "starintel-target", "target_" + i,
							"usernamegen", "default", "default");
					long ttl = t0 + (windowMs * i) / leases - System.currentTimeMillis();
					if (ttl < 200) {
						late.incrementAndGet();
						ttl = 200;
					}
					LeaseResult result = store.acquire(new AcquireRequest(identity, Identifiers.generate("request"),
							Instant.now().plusSeconds(30), owner, ttl, 3_600_000, "execution_bench", "job_bench",
							"trace_bench", LeaseMetadata.empty()));
					if (result.code() != ResultCode.LEASE_ACQUIRED) {
						throw new IllegalStateException("acquire answered " + result.code());
					}
				}
				return null;
			}));
		}
		for (Future<?> future : futures) {
			future.get(30, TimeUnit.MINUTES);
		}
		pool.shutdown();
		double acquireSeconds = (System.currentTimeMillis() - start) / 1e3;
		System.out.printf(Locale.ROOT, "acquired %d leases in %.1f s (%d acquired after their planned expiry)%n",
				leases, acquireSeconds, late.get());

		List<SweepObserver.Tick> ticks = new CopyOnWriteArrayList<>();
		AtomicLong sweptCount = new AtomicLong();
		AtomicLong lastSweptAt = new AtomicLong();
		SweepObserver observer = (s, tick) -> {
			ticks.add(tick);
			if (tick.expired() > 0) {
				sweptCount.addAndGet(tick.expired());
				lastSweptAt.set(System.currentTimeMillis());
			}
		};
		// the starter's path: the audited store, one target_lease_expire event per swept lease through the non-blocking
		// pipeline into the program's durable audit stream
		AsyncAuditPipeline pipeline = new AsyncAuditPipeline(List.of(new RedisStreamAuditSink(
				new StringRedisTemplate(factory), 100_000)), 100_000, Duration.ofSeconds(10), (n) -> {
				});
		LeaseStore swept = audit ? new AuditingLeaseStore(store, List.of(), pipeline::submit, Clock.systemUTC()) : store;
		ExpirySweeper sweeper = ExpirySweeper
			.builder(new LeaseService(swept, Clock.systemUTC(), Duration.ofSeconds(5), null, null))
			.programs(List.of(scope))
			.batchSize(batch)
			.maxBatchesPerTick(maxBatches)
			.observer(observer)
			.build();
		try (ManyLeasesRenewalHarness.ServerStats stats = new ManyLeasesRenewalHarness.ServerStats(
				"redis://" + server)) {
			long wait = t0 - System.currentTimeMillis();
			if (wait > 0) {
				Thread.sleep(wait); // harness pacing only (not a test): the sweep phase starts at the window
			}
			double cpuBefore = stats.cpuSeconds();
			long commandsBefore = stats.commands();
			long fcallsBefore = stats.calls("fcall");
			long sweepStart = System.currentTimeMillis();
			sweeper.start();
			long giveUp = t0 + windowMs + 600_000;
			while (sweptCount.get() < leases && System.currentTimeMillis() < giveUp) {
				Thread.sleep(200); // harness polling only
			}
			sweeper.close();
			double cpu = stats.cpuSeconds() - cpuBefore;
			long commands = stats.commands() - commandsBefore;
			long fcalls = stats.calls("fcall") - fcallsBefore;
			List<Long> working = new ArrayList<>();
			for (SweepObserver.Tick tick : ticks) {
				if (tick.expired() > 0) {
					working.add(tick.durationNanos());
				}
			}
			Collections.sort(working);
			long maxPerTick = ticks.stream().mapToLong(SweepObserver.Tick::expired).max().orElse(0);
			System.out.printf(Locale.ROOT, "swept %d/%d leases; sweep phase %.1f s (window %d s); last lease swept "
					+ "%.2f s after the window ended%n", sweptCount.get(), leases,
					(lastSweptAt.get() - sweepStart) / 1e3, windowMs / 1000, (lastSweptAt.get() - t0 - windowMs) / 1e3);
			System.out.printf(Locale.ROOT, "ticks %d (with expiries %d); per tick: p50 %.1f ms, p99 %.1f ms, max %.1f ms;"
					+ " max leases per tick %d; batches of %d, at most %d per tick%n", ticks.size(), working.size(),
					percentile(working, 0.50), percentile(working, 0.99), percentile(working, 1.0), maxPerTick, batch,
					maxBatches);
			System.out.printf(Locale.ROOT, "redis: %.2f s CPU (user+sys) during the sweep phase, %.1f us per swept "
					+ "lease; %d commands, %d FCALLs%n", cpu, cpu * 1e6 / Math.max(1, sweptCount.get()), commands, fcalls);
		}
		finally {
			sweeper.close();
			System.out.printf(Locale.ROOT, "audit: %s, %d events delivered, %d dropped%n", audit ? "on" : "off",
					pipeline.deliveredCount(), pipeline.droppedCount());
			pipeline.close();
			factory.destroy();
		}
	}

	private static double percentile(List<Long> sortedNanos, double p) {
		if (sortedNanos.isEmpty()) {
			return 0;
		}
		int index = (int) Math.min(sortedNanos.size() - 1, Math.ceil(p * sortedNanos.size()) - 1);
		return sortedNanos.get(Math.max(0, index)) / 1e6;
	}

}
