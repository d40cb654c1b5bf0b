package io.starintel.lease.admin;

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
 * Configuration of the target-lease admin endpoint ({@code starintel.lease.admin.*}). Deadline and page-size bounds
 * are the lease policy's ({@code starintel.lease.request.maximum-deadline}, {@code starintel.lease.list.maximum-page-size}); the
 * store's own capability says whether it writes admin audit atomically.
 *
 * @param enabled Whether the admin endpoint is enabled.
 * @param maxBodyBytes Maximum request body size in bytes, 256..1048576; larger bodies are rejected with
 * invalid_lease_request.
 * @param defaultDeadline Deadline given to a request that names none; positive, at most
 * starintel.lease.request.maximum-deadline.
 * @param admission Admission control per tenant (the shape the worker API shares).
 * @param audit Audit settings.
 * @param credentials Credentials accepted by the endpoint's own security (HTTP Basic: credential id and secret); kind
 * defaults to operator, capabilities to none; a credential's programs are program and programs.
 */
@ConfigurationProperties("starintel.lease.admin")
public record AdminProperties(@DefaultValue("true") boolean enabled, @DefaultValue("8192") int maxBodyBytes,
		@DefaultValue("5s") Duration defaultDeadline, @DefaultValue @NestedConfigurationProperty Admission admission,
		@DefaultValue Audit audit, @DefaultValue List<Credential> credentials) {

	private static final String PREFIX = "starintel.lease.admin.";

	/**
	 * Validates every value of the group, reporting every problem at once, each naming its property (the beans built
	 * from them would otherwise fail with a message naming none, or start and refuse every request). The credentials
	 * are checked when they are loaded, the default deadline against the lease policy when the endpoint is built.
	 */
	public AdminProperties {
		PropertyProblems problems = new PropertyProblems(PREFIX);
		AdapterPropertiesCheck.check(problems, maxBodyBytes, defaultDeadline, admission);
		problems.atLeast("audit.stream-max-length", audit.streamMaxLength(), 1);
		problems.throwIfAny("Set each property listed under " + PREFIX + "*; see docs/admin.md, \"Properties\".");
	}

	/**
	 * Audit sinks.
	 *
	 * @param streamMaxLength Approximate bound of each program's routine audit stream (XADD MAXLEN ~), at least 1; the
	 * admin stream keeps 100000.
	 * @param streamEnabled Whether the Redis Stream sink is used when a StringRedisTemplate is available.
	 */
	public record Audit(@DefaultValue("100000") long streamMaxLength, @DefaultValue("true") boolean streamEnabled) {
	}

}
