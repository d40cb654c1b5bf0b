package io.starintel.lease.it.redis;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditSink;

/**
 * The assembled application of the audit suites: a configuration class importing the auto-configurations under
 * test and declaring a {@link Recorded} bean (every audit event the application emits, behind the audit pipeline),
 * started on the real Redis with a lease identity of its own.
 */
public final class AuditedApplication {

	private AuditedApplication() {
	}

	/** Starts {@code configuration} (no web server) as service {@code principal} of {@code tenant}/{@code program}. */
	public static ConfigurableApplicationContext start(Class<?> configuration, String tenant, String program,
			String principal) {
		return new SpringApplicationBuilder(configuration).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.properties("spring.data.redis.url=" + RedisServers.uri(), "starintel.lease.tenant=" + tenant,
					"starintel.lease.program=" + program, "starintel.lease.owner.service-principal=" + principal)
			.run();
	}

	/** Every audit event of the application, in the order the sinks received them. */
	public static final class Recorded implements AuditSink {

		public final List<AuditEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void record(AuditEvent event) {
			this.events.add(event);
		}

	}

}
