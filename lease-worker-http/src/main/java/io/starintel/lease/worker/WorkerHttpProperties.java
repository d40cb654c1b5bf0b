package io.starintel.lease.worker;

import java.time.Duration;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.DefaultValue;

import io.starintel.lease.core.internal.PropertyProblems;
import io.starintel.lease.http.Admission;
import io.starintel.lease.http.Credential;
import io.starintel.lease.http.internal.AdapterPropertiesCheck;

/**
 * Settings of the worker HTTP API ({@code starintel.lease.worker-http.*}). Invalid values fail start-up with one
 * report naming each property at fault.
 *
 * @param enabled Whether the worker endpoints under /lease/v1 are registered
 * @param maxBodyBytes Largest accepted request body, 256..1048576 bytes; larger bodies are 400
 * @param defaultDeadline Deadline of a request that gives no deadline_at, and the bound on receiving a request's body
 * (a body not received by then is 408); positive, at most starintel.lease.request.maximum-deadline
 * @param defaultMaximumLifetime Maximum lifetime of a lease whose acquire gives no maximum_lifetime_ms; positive, at
 * most starintel.lease.ttl.maximum-lifetime
 * @param admission Per-tenant admission control (the shape the admin endpoint shares)
 * @param credentials Worker credentials (HTTP Basic: credential id and secret): kind worker (the default),
 * capabilities targets:lease (the default) or targets:read, exactly one program
 */
@ConfigurationProperties("starintel.lease.worker-http")
public record WorkerHttpProperties(@DefaultValue("false") boolean enabled, @DefaultValue("8192") int maxBodyBytes,
		@DefaultValue("5s") Duration defaultDeadline, @DefaultValue("1h") Duration defaultMaximumLifetime,
		@DefaultValue @NestedConfigurationProperty Admission admission, @DefaultValue List<Credential> credentials) {

	private static final String PREFIX = "starintel.lease.worker-http.";

	/**
	 * Validates every value of the group, reporting every problem at once, each naming its property (a negative body
	 * bound or deadline would otherwise start an API that refuses every request). The credentials are checked when
	 * they are loaded, the defaults against the lease policy when the API is built.
	 */
	public WorkerHttpProperties {
		PropertyProblems problems = new PropertyProblems(PREFIX);
		AdapterPropertiesCheck.check(problems, maxBodyBytes, defaultDeadline, admission);
		problems.positive("default-maximum-lifetime", defaultMaximumLifetime);
		problems.throwIfAny("Set each property listed under " + PREFIX + "*; see docs/worker-api.md, \"Properties\".");
	}

}
