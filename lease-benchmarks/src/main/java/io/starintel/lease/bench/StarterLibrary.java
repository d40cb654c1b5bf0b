package io.starintel.lease.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.starintel.lease.audit.internal.AsyncAuditPipeline;
import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The product as a user gets it: a Spring Boot context with the starter's auto-configurations (and nothing of our
 * own), pointed at the benchmark's Redis. {@code store} calls the auto-configured {@link RedisLeaseStore} bean
 * directly through the {@link LeaseStore} SPI, with the store's default settings (among them the replica wait: every
 * replica the primary reports, so a run with a replica waits and one without sends no {@code WAIT});
 * {@code store-nowait} is the same with the replica wait off
 * ({@code starintel.lease.redis.replica-acknowledgement.mode=fixed}, {@code replicas=0}), to put a price on the wait
 * in a run with a replica; {@code audited} calls the auto-configured {@link LeaseService}, the facade under
 * {@code @TargetLeased} jobs (fresh request ids and deadlines, the audit decorator with the default log and
 * application-event sinks, metrics and observations); {@code audited-stream} is {@code audited} with the admin
 * module's durable Redis stream sink ({@link DurableAudit}). The whole job path, aspect included, is
 * {@link JobLibrary}. The audit log line goes to a file, not the console.
 */
final class StarterLibrary implements LockLibrary {

	static final String TENANT = "tenant-bench";

	private static final Duration TTL = Duration.ofSeconds(30);

	private static final Duration MAXIMUM_LIFETIME = Duration.ofMinutes(5);

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private final ConfigurableApplicationContext context;

	private final boolean audited;

	private final String program;

	StarterLibrary(BenchRedis redis, String cell, boolean audited) {
		this(redis, cell, audited, false, true, false);
	}

	/**
	 * As the other constructor; {@code memory}: the in-memory store instead of Redis ({@link CycleCost});
	 * {@code replicaWait}: false for {@code store-nowait}; {@code durableAudit}: the Redis stream audit sink the admin
	 * module declares ({@link DurableAudit}), for {@code audited-stream}.
	 */
	StarterLibrary(BenchRedis redis, String cell, boolean audited, boolean memory, boolean replicaWait,
			boolean durableAudit) {
		this.audited = audited;
		this.program = cell;
		Map<String, Object> properties = properties(redis, cell);
		if (memory) {
			properties.put("starintel.lease.store", "memory");
		}
		if (!replicaWait) {
			properties.put("starintel.lease.redis.replica-acknowledgement.mode", "fixed");
			properties.put("starintel.lease.redis.replica-acknowledgement.replicas", "0");
		}
		this.context = run(properties, sources(Application.class, durableAudit));
	}

	/**
	 * The properties of a benchmark context: the benchmark's Redis, the tenant, the cell as the program, the service
	 * principal, and the log in a file of the cell's own.
	 */
	static Map<String, Object> properties(BenchRedis redis, String cell) {
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.data.redis.host", redis.host());
		properties.put("spring.data.redis.port", redis.port());
		properties.put("starintel.lease.tenant", TENANT);
		properties.put("starintel.lease.program", cell);
		properties.put("starintel.lease.owner.service-principal", "prn_bench");
		properties.put("logging.file.name",
				Path.of(System.getProperty("bench.out", "target/bench"), "logs", cell + ".log").toString());
		properties.put("logging.threshold.console", "WARN");
		// one file per cell, never rolled over: Boot's default policy rolls at 10 MB and gzips each rolled file, which
		// at two audit lines per cycle means a compression every second or two on the same 2 cores -- the
		// application's log retention policy, not the audit decorator's cost
		properties.put("logging.logback.rollingpolicy.max-file-size", "10GB");
		properties.put("spring.main.banner-mode", "off");
		return properties;
	}

	/** An application's sources, with the admin module's durable audit sink ({@link DurableAudit}) when asked. */
	static Class<?>[] sources(Class<?> application, boolean durableAudit) {
		return durableAudit ? new Class<?>[] { application, DurableAudit.class } : new Class<?>[] { application };
	}

	/** A started non-web context of the given sources with the given properties. */
	static ConfigurableApplicationContext run(Map<String, Object> properties, Class<?>... sources) {
		return new SpringApplicationBuilder(sources).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties(properties)
			.run();
	}

	@Override
	public LockCycle open(String key, int thread) {
		LockIdentity identity = LockIdentity.of(TENANT, this.program, "starintel-target", key, "usernamegen",
				"default", null);
		LeaseOwner owner = new LeaseOwner("bench-" + thread, "client_1", "key_1", "instance-" + thread);
		return this.audited ? auditedCycle(this.context.getBean(LeaseService.class), identity, owner)
				: storeCycle(this.context.getBean(LeaseStore.class), identity, owner);
	}

	private static LockCycle storeCycle(LeaseStore store, LockIdentity identity, LeaseOwner owner) {
		return () -> {
			LeaseResult acquired = store.acquire(new AcquireRequest(identity, Identifiers.generate("request"),
					Instant.now().plus(DEADLINE), owner, TTL.toMillis(), MAXIMUM_LIFETIME.toMillis(), "execution_1",
					"job_1", "trace_1", LeaseMetadata.empty()));
			if (acquired.code() == ResultCode.LEASE_CONFLICT) {
				return false;
			}
			expect(acquired, ResultCode.LEASE_ACQUIRED);
			expect(store.release(new ReleaseRequest(acquired.lease().handle(), Identifiers.generate("request"),
					Instant.now().plus(DEADLINE))), ResultCode.LEASE_RELEASED);
			return true;
		};
	}

	private static LockCycle auditedCycle(LeaseService service, LockIdentity identity, LeaseOwner owner) {
		return () -> {
			LeaseResult acquired = service.acquire(AcquireRequest.builder(identity, owner)
				.ttl(TTL)
				.maximumLifetime(MAXIMUM_LIFETIME)
				.execution("execution_1", "job_1", "trace_1")
				.build(service.newId(), service.deadline()));
			if (acquired.code() == ResultCode.LEASE_CONFLICT) {
				return false;
			}
			expect(acquired, ResultCode.LEASE_ACQUIRED);
			expect(service.release(new ReleaseRequest(acquired.lease().handle(), service.newId(), service.deadline())),
					ResultCode.LEASE_RELEASED);
			return true;
		};
	}

	private static void expect(LeaseResult result, ResultCode expected) {
		if (result.code() != expected) {
			throw new IllegalStateException("expected " + expected.wireName() + ", got " + result.code().wireName()
					+ " (" + result.reason() + ")");
		}
	}

	/** The context's audit pipeline, or null when the context has none (the store paths need none). */
	@Nullable AsyncAuditPipeline auditPipeline() {
		return this.audited ? auditPipeline(this.context) : null;
	}

	/** A context's audit pipeline, or null when it has none. */
	static @Nullable AsyncAuditPipeline auditPipeline(ConfigurableApplicationContext context) {
		return context.getBeanProvider(AsyncAuditPipeline.class).getIfAvailable();
	}

	@Override
	public boolean awaitAuditDelivered() {
		return awaitAuditDelivered(auditPipeline());
	}

	/**
	 * Waits (at most 10 s) until the pipeline's backlog is delivered; false at once without a pipeline.
	 * @throws IllegalStateException when it does not drain in 10 s
	 */
	static boolean awaitAuditDelivered(@Nullable AsyncAuditPipeline pipeline) {
		if (pipeline == null) {
			return false;
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (pipeline.backlog() > 0) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("the audit pipeline did not drain in 10 s");
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
		}
		return true;
	}

	@Override
	public void close() {
		this.context.close();
	}

	/**
	 * The durable audit sink of an application with the admin module ({@code lease-admin-actuator}'s
	 * {@code TargetLeaseAdminAutoConfiguration} declares the same bean, bounded at the admin default of 100,000
	 * entries per stream; the module itself needs a web application, which the benchmark does not start): the
	 * routine events go to the program's Redis audit stream in batches, and the log sink steps aside
	 * ({@code starintel.lease.audit.log-sink=auto}). The {@code -stream} paths: what a fleet with the admin module runs.
	 */
	@Configuration(proxyBeanMethods = false)
	static class DurableAudit {

		@Bean
		RedisStreamAuditSink targetLeaseRedisStreamAuditSink(StringRedisTemplate redis) {
			return new RedisStreamAuditSink(redis, 100_000);
		}

	}

	/** The application: auto-configuration only, as a user's {@code @SpringBootApplication} without beans. */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
