package io.starintel.lease.bench;

import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.aop.framework.ProxyFactory;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.job.CancellationMode;
import io.starintel.lease.store.DelegatingStore;
import io.starintel.lease.job.internal.JobSettings;
import io.starintel.lease.job.internal.LeaseRenewalScheduler;
import io.starintel.lease.job.internal.TargetLeaseInterceptor;
import io.starintel.lease.job.internal.TargetLeasedAdvisor;
import io.starintel.lease.job.TargetLeased;
import io.starintel.lease.job.TargetResolver;
import io.starintel.lease.service.LeaseService;

/**
 * Benchmark harness (not a test): the {@code @TargetLeased} aspect's own overhead per call on the memory store.
 * Run: {@code ./mvnw -q -pl lease-jobs test-compile exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.starintel.lease.bench.AspectOverheadHarness}. It measures per call: (a) the bare store
 * acquire+release, (b) the full aspect path (SpEL, resolver, identity, service metrics/observation, renewal
 * registration, context binding, release); the difference is the aspect's overhead beyond the store calls.
 */
public final class AspectOverheadHarness {

	private static final int WARMUP = 50_000;

	private static final int CALLS = 100_000;

	/** Per call of the last run: elapsed time minus the time spent inside the store's acquire and release. */
	private static long[] overhead;

	public static class Target {

		@TargetLeased(target = "#id", actor = "usernamegen", ttl = "30s", maxLifetime = "5m")
		public String run(String id) {
			return id;
		}

	}

	/** Counts store calls; delegates to the memory store. */
	static final class CountingStore extends DelegatingStore {

		long nanos;

		@Override
		public LeaseResult acquire(AcquireRequest request) {
			long start = System.nanoTime();
			LeaseResult result = super.acquire(request);
			this.nanos += System.nanoTime() - start;
			return result;
		}

		@Override
		public LeaseResult release(ReleaseRequest request) {
			long start = System.nanoTime();
			LeaseResult result = super.release(request);
			this.nanos += System.nanoTime() - start;
			return result;
		}

	}

	public static void main(String[] args) {
		CountingStore store = new CountingStore();
		// -Dbench.audit=true: the jobs' store as the auto-configuration wires it (audited to the default sinks)
		io.starintel.lease.store.LeaseStore serviceStore = Boolean.getBoolean("bench.audit")
				? new io.starintel.lease.audit.internal.AuditingLeaseStore(store,
						java.util.List.of(io.starintel.lease.audit.AuditSink.log(),
								new io.starintel.lease.audit.spring.ApplicationEventAuditSink((event) -> {
								})),
						Clock.systemUTC(), true)
				: store;
		LeaseService service = new LeaseService(serviceStore, Clock.systemUTC(), Duration.ofSeconds(5),
				new SimpleMeterRegistry(), ObservationRegistry.NOOP);
		try (LeaseRenewalScheduler scheduler = new LeaseRenewalScheduler(service, Clock.systemUTC(),
				Duration.ofSeconds(2), (event) -> {
				}, 1)) {
			TargetLeaseInterceptor interceptor = new TargetLeaseInterceptor(service, scheduler, TargetResolver.PASS_THROUGH,
					() -> new LeaseOwner("prn_bench", "client_bench", "key_bench", "instance_bench"),
					new JobSettings("tenant-main", "program-a", OperationClasses.defaults(), Duration.ofSeconds(30),
							CancellationMode.INTERRUPT));
			ProxyFactory factory = new ProxyFactory(new Target());
			factory.setProxyTargetClass(true);
			factory.addAdvisor(new TargetLeasedAdvisor(() -> interceptor));
			Target proxied = (Target) factory.getProxy();
			// (c) the service alone: request building, ids, deadlines, metrics, observation, no aspect
			LeaseOwner owner = new LeaseOwner("prn_bench", "client_bench", "key_bench", "instance_bench");
			io.starintel.lease.core.LockIdentity identity = io.starintel.lease.core.LockIdentity.of("tenant-main",
					"program-a", "starintel-target", "target_svc", "usernamegen", "default", "default");
			for (int i = 0; i < WARMUP; i++) {
				serviceCycle(service, owner, identity);
			}
			store.nanos = 0;
			long serviceStart = System.nanoTime();
			for (int i = 0; i < CALLS; i++) {
				serviceCycle(service, owner, identity);
			}
			long serviceTotal = System.nanoTime() - serviceStart;
			System.out.printf("service acquire+release mean=%.1f us (store part %.1f us)%n",
					serviceTotal / (double) CALLS / 1e3, store.nanos / (double) CALLS / 1e3);
			run(proxied, store, WARMUP);
			long[] perCall = run(proxied, store, CALLS);
			long storeNanos = store.nanos;
			Arrays.sort(perCall);
			long total = Arrays.stream(perCall).sum();
			System.out.printf("calls=%d%n", CALLS);
			System.out.printf("full call p50=%.1f us p90=%.1f us p99=%.1f us mean=%.1f us%n", perCall[CALLS / 2] / 1e3,
					perCall[CALLS * 9 / 10] / 1e3, perCall[CALLS * 99 / 100] / 1e3, total / (double) CALLS / 1e3);
			System.out.printf("store acquire+release mean=%.1f us%n", storeNanos / (double) CALLS / 1e3);
			System.out.printf("aspect overhead beyond store calls mean=%.1f us%n",
					(total - storeNanos) / (double) CALLS / 1e3);
			Arrays.sort(overhead);
			System.out.printf("per-call overhead beyond store calls p50=%.1f us p90=%.1f us p99=%.1f us%n",
					overhead[CALLS / 2] / 1e3, overhead[CALLS * 9 / 10] / 1e3, overhead[CALLS * 99 / 100] / 1e3);
		}
	}

	private static void serviceCycle(LeaseService service, LeaseOwner owner,
			io.starintel.lease.core.LockIdentity identity) {
		LeaseResult acquired = service.acquire(io.starintel.lease.core.AcquireRequest.builder(identity, owner)
			.ttl(Duration.ofSeconds(30))
			.maximumLifetime(Duration.ofMinutes(5))
			.execution("execution_bench", "job_bench", "trace_bench")
			.build(service.newId(), service.deadline()));
		service.release(new io.starintel.lease.core.ReleaseRequest(acquired.lease().handle(), service.newId(),
				service.deadline()));
	}

	private static long[] run(Target proxied, CountingStore store, int calls) {
		store.nanos = 0;
		long[] perCall = new long[calls];
		overhead = new long[calls];
		for (int i = 0; i < calls; i++) {
			String id = "target_" + (i % 1024);
			long storeBefore = store.nanos;
			long start = System.nanoTime();
			proxied.run(id);
			long elapsed = System.nanoTime() - start;
			perCall[i] = elapsed;
			overhead[i] = elapsed - (store.nanos - storeBefore);
		}
		return perCall;
	}

}
