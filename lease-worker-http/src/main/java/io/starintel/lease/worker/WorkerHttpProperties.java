package io.starintel.lease.worker;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the worker HTTP API ({@code starintel.lease.worker-http.*}).
 *
 * @param enabled whether the worker endpoints under {@code /lease/v1} are registered
 * @param maxBodyBytes largest accepted request body; larger bodies are 400
 * @param defaultDeadline deadline of a request that gives no {@code deadline_at}
 * @param defaultMaximumLifetime maximum lifetime of a lease whose acquire gives no {@code maximum_lifetime_ms}
 * @param admission per-tenant admission control
 * @param credentials worker credentials (HTTP Basic: credential id and secret)
 */
@ConfigurationProperties("starintel.lease.worker-http")
public record WorkerHttpProperties(@DefaultValue("false") boolean enabled, @DefaultValue("8192") int maxBodyBytes,
		@DefaultValue("5s") Duration defaultDeadline, @DefaultValue("1h") Duration defaultMaximumLifetime,
		@DefaultValue Admission admission, @DefaultValue List<Credential> credentials) {

	/**
	 * Per-tenant admission control.
	 *
	 * @param maxInFlight concurrent operations per tenant
	 * @param permitsPerSecond token-bucket refill rate per tenant
	 * @param burst token-bucket capacity per tenant
	 */
	public record Admission(@DefaultValue("16") int maxInFlight, @DefaultValue("50") double permitsPerSecond,
			@DefaultValue("100") int burst) {
	}

	/**
	 * One worker credential.
	 *
	 * @param principal audited owner principal id of the leases this credential acquires
	 * @param credentialId HTTP Basic user name; recorded as the lease's owner credential id (never secret)
	 * @param clientId owner client id recorded with each lease (defaults to the principal)
	 * @param secretHash password-encoder hash of the secret, e.g. {@code {bcrypt}$2a$10$...}; plain values fail start-up
	 * @param kind credential kind; only {@code worker} is accepted here
	 * @param capabilities capabilities: {@code targets:lease} for the lease operations
	 * @param tenant tenant of every lock identity this credential acts on
	 * @param program program of every lock identity this credential acts on
	 * @param actors actors this credential may act as (empty: any)
	 * @param targets targets this credential may act on, as {@code target_namespace/target_id} (empty: any)
	 */
	public record Credential(@Nullable String principal, @Nullable String credentialId, @Nullable String clientId,
			@Nullable String secretHash, @DefaultValue("worker") String kind,
			@DefaultValue("targets:lease") List<String> capabilities, @Nullable String tenant,
			@Nullable String program, @DefaultValue List<String> actors, @DefaultValue List<String> targets) {
	}

}
