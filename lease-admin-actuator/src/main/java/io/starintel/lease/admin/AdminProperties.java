package io.starintel.lease.admin;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Configuration of the target-lease admin endpoint ({@code starintel.lease.admin.*}). Deadline and page-size bounds
 * are the lease policy's ({@code starintel.lease.request.maximum-deadline}, {@code starintel.lease.list.maximum-page-size}); the
 * store's own capability says whether it writes admin audit atomically.
 *
 * @param enabled Whether the admin endpoint is enabled.
 * @param maxBodyBytes Maximum request body size in bytes; larger bodies are rejected with invalid_lease_request.
 * @param defaultDeadline Deadline given to a request that names none.
 * @param admission Admission control per tenant.
 * @param audit Audit settings.
 * @param credentials Credentials accepted by the endpoint's own security (HTTP Basic: credential id and secret).
 */
@ConfigurationProperties("starintel.lease.admin")
public record AdminProperties(@DefaultValue("true") boolean enabled, @DefaultValue("8192") int maxBodyBytes,
		@DefaultValue("5s") Duration defaultDeadline, @DefaultValue Admission admission, @DefaultValue Audit audit,
		@DefaultValue List<Credential> credentials) {

	/**
	 * Per-tenant admission control.
	 *
	 * @param maxInFlight Maximum concurrent admin operations per tenant.
	 * @param permitsPerSecond Sustained admin operations per second per tenant.
	 * @param burst Burst size of the per-tenant token bucket.
	 */
	public record Admission(@DefaultValue("16") int maxInFlight, @DefaultValue("50") double permitsPerSecond,
			@DefaultValue("100") int burst) {
	}

	/**
	 * Audit sinks.
	 *
	 * @param streamMaxLength Approximate bound of each program's routine audit stream (XADD MAXLEN ~); the admin
	 * stream keeps 100000.
	 * @param streamEnabled Whether the Redis Stream sink is used when a StringRedisTemplate is available.
	 */
	public record Audit(@DefaultValue("100000") long streamMaxLength, @DefaultValue("true") boolean streamEnabled) {
	}

	/**
	 * One credential: who it is, its secret's hash, what it may do and where.
	 *
	 * @param principal Principal id the credential authenticates as.
	 * @param credentialId Non-secret credential id, used as the HTTP Basic user name and in audit events.
	 * @param secretHash Password-encoder hash of the secret, e.g. "{bcrypt}$2a$10$...". Never the secret itself.
	 * @param kind Kind of credential; only administrator credentials may force-release or revoke.
	 * @param capabilities Capabilities: targets:read, targets:force-release, targets:revoke.
	 * @param tenant Tenant of the credential's scope.
	 * @param programs Programs of the credential's scope.
	 * @param actors Actors of the credential's scope; empty for every actor.
	 * @param targets Targets of the credential's scope as target_namespace/target_id; empty for every target.
	 */
	public record Credential(@DefaultValue("") String principal, @DefaultValue("") String credentialId,
			@DefaultValue("") String secretHash, @DefaultValue("operator") CredentialKind kind,
			@DefaultValue Set<String> capabilities, @DefaultValue("") String tenant, @DefaultValue Set<String> programs,
			@DefaultValue Set<String> actors, @DefaultValue Set<String> targets) {
	}

}
