package io.starintel.lease.bench;

import java.util.Map;

import io.starintel.lease.job.TargetLeased;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The path an {@code @TargetLeased} job takes ({@code job}): a Spring Boot context with the starter's
 * auto-configurations (the aspect, the renewal scheduler, the audited {@link io.starintel.lease.service.LeaseService}
 * with the default log and application-event sinks, metrics, observations) and one bean of our own,
 * {@link LeasedJob}, whose {@code @TargetLeased} method has an empty body. A cycle is one call of that method through
 * the Spring proxy: the aspect resolves the target (SpEL), acquires, binds the lease context, registers the lease for
 * renewal, runs the body, unregisters and releases. A contended call that finds the lease held is skipped
 * ({@code onConflict = SKIP}, the default: the method returns null; the skip's audit event is a line in the cell's
 * log file, the aspect's own line is DEBUG). The audit backlog is drained inside the slice, as for {@code audited}.
 */
final class JobLibrary implements LockLibrary {

	private final ConfigurableApplicationContext context;

	/** {@code durableAudit}: with the admin module's Redis stream audit sink ({@code job-stream}). */
	JobLibrary(BenchRedis redis, String cell, boolean durableAudit) {
		Map<String, Object> properties = StarterLibrary.properties(redis, cell);
		this.context = StarterLibrary.run(properties, StarterLibrary.sources(JobApplication.class, durableAudit));
	}

	@Override
	public LockCycle open(String key, int thread) {
		LeasedJob job = this.context.getBean(LeasedJob.class);
		return () -> job.run(key) != null;
	}

	@Override
	public boolean awaitAuditDelivered() {
		return StarterLibrary.awaitAuditDelivered(StarterLibrary.auditPipeline(this.context));
	}

	@Override
	public void close() {
		this.context.close();
	}

	/** The application: auto-configuration and the leased job bean. */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class JobApplication {

		@Bean
		LeasedJob leasedJob() {
			return new LeasedJob();
		}

	}

	/** A job whose body does nothing: the cycle is the aspect's work and the store's. */
	public static class LeasedJob {

		/**
		 * One leased run on a target.
		 * @param target the target id (the benchmark's key)
		 * @return {@code TRUE} when the body ran; null when the call was skipped because another holder has the lease
		 */
		@TargetLeased(target = "#target", actor = "usernamegen")
		public Boolean run(String target) {
			return Boolean.TRUE;
		}

	}

}
