package io.starintel.lease.admin;

import java.time.Duration;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.DefaultValue;

import io.starintel.lease.http.Admission;
import io.starintel.lease.http.Credential;

/**
 * Configuration of the target-lease admin endpoint ({@code starintel.lease.admin.*}). Deadline and page-size bounds
 * are the lease policy's ({@code starintel.lease.request.maximum-deadline}, {@code starintel.lease.list.maximum-page-size}); the
 * store's own capability says whether it writes admin audit atomically.
 *
 * @param enabled Whether the admin endpoint is enabled.
 * @param maxBodyBytes Maximum request body size in bytes; larger bodies are rejected with invalid_lease_request.
 * @param defaultDeadline Deadline given to a request that names none.
 * @param admission Admission control per tenant (the shape the worker API shares).
 * @param audit Audit settings.
 * @param credentials Credentials accepted by the endpoint's own security (HTTP Basic: credential id and secret); kind
 * defaults to operator, capabilities to none; a credential's programs are program and programs.
 */
@ConfigurationProperties("starintel.lease.admin")
public record AdminProperties(@DefaultValue("true") boolean enabled, @DefaultValue("8192") int maxBodyBytes,
		@DefaultValue("5s") Duration defaultDeadline, @DefaultValue @NestedConfigurationProperty Admission admission,
		@DefaultValue Audit audit, @DefaultValue List<Credential> credentials) {

	/**
	 * Audit sinks.
	 *
	 * @param streamMaxLength Approximate bound of each program's routine audit stream (XADD MAXLEN ~); the admin
	 * stream keeps 100000.
	 * @param streamEnabled Whether the Redis Stream sink is used when a StringRedisTemplate is available.
	 */
	public record Audit(@DefaultValue("100000") long streamMaxLength, @DefaultValue("true") boolean streamEnabled) {
	}

}
