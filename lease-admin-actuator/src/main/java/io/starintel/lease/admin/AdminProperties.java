package io.starintel.lease.admin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the target-lease admin endpoint ({@code starintel.lease.admin.*}). Deadline and page-size bounds
 * are the lease policy's ({@code starintel.lease.maximum-deadline}, {@code starintel.lease.maximum-page-size}); the
 * store's own capability says whether it writes admin audit atomically.
 */
@ConfigurationProperties("starintel.lease.admin")
public class AdminProperties {

	/** Whether the admin endpoint is enabled. */
	private boolean enabled = true;

	/** Maximum request body size in bytes; larger bodies are rejected with invalid_lease_request. */
	private int maxBodyBytes = 8192;

	/** Deadline given to a request that names none. */
	private Duration defaultDeadline = Duration.ofSeconds(5);

	/** Admission control per tenant. */
	private final Admission admission = new Admission();

	/** Audit settings. */
	private final Audit audit = new Audit();

	/** Credentials accepted by the endpoint's own security (HTTP Basic: credential id and secret). */
	private List<Credential> credentials = new ArrayList<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public int getMaxBodyBytes() {
		return this.maxBodyBytes;
	}

	public void setMaxBodyBytes(int maxBodyBytes) {
		this.maxBodyBytes = maxBodyBytes;
	}

	public Duration getDefaultDeadline() {
		return this.defaultDeadline;
	}

	public void setDefaultDeadline(Duration defaultDeadline) {
		this.defaultDeadline = defaultDeadline;
	}

	public Admission getAdmission() {
		return this.admission;
	}

	public Audit getAudit() {
		return this.audit;
	}

	public List<Credential> getCredentials() {
		return this.credentials;
	}

	public void setCredentials(List<Credential> credentials) {
		this.credentials = credentials;
	}

	/** Per-tenant admission control. */
	public static class Admission {

		/** Maximum concurrent admin operations per tenant. */
		private int maxInFlight = 16;

		/** Sustained admin operations per second per tenant. */
		private double permitsPerSecond = 50;

		/** Burst size of the per-tenant token bucket. */
		private int burst = 100;

		public int getMaxInFlight() {
			return this.maxInFlight;
		}

		public void setMaxInFlight(int maxInFlight) {
			this.maxInFlight = maxInFlight;
		}

		public double getPermitsPerSecond() {
			return this.permitsPerSecond;
		}

		public void setPermitsPerSecond(double permitsPerSecond) {
			this.permitsPerSecond = permitsPerSecond;
		}

		public int getBurst() {
			return this.burst;
		}

		public void setBurst(int burst) {
			this.burst = burst;
		}

	}

	/** Audit sinks. */
	public static class Audit {

		/** Approximate bound of each program's routine audit stream (XADD MAXLEN ~); the admin stream keeps 100000. */
		private long streamMaxLength = 100_000;

		/** Whether the Redis Stream sink is used when a StringRedisTemplate is available. */
		private boolean streamEnabled = true;

		public long getStreamMaxLength() {
			return this.streamMaxLength;
		}

		public void setStreamMaxLength(long streamMaxLength) {
			this.streamMaxLength = streamMaxLength;
		}

		public boolean isStreamEnabled() {
			return this.streamEnabled;
		}

		public void setStreamEnabled(boolean streamEnabled) {
			this.streamEnabled = streamEnabled;
		}

	}

	/** One credential: who it is, its secret's hash, what it may do and where. */
	public static class Credential {

		/** Principal id the credential authenticates as. */
		private String principal = "";

		/** Non-secret credential id, used as the HTTP Basic user name and in audit events. */
		private String credentialId = "";

		/** Password-encoder hash of the secret, e.g. "{bcrypt}$2a$10$...". Never the secret itself. */
		private String secretHash = "";

		/** Kind of credential; only administrator credentials may force-release or revoke. */
		private CredentialKind kind = CredentialKind.OPERATOR;

		/** Capabilities: targets:read, targets:force-release, targets:revoke. */
		private Set<String> capabilities = new LinkedHashSet<>();

		/** Tenant of the credential's scope. */
		private String tenant = "";

		/** Programs of the credential's scope. */
		private Set<String> programs = new LinkedHashSet<>();

		/** Actors of the credential's scope; empty for every actor. */
		private Set<String> actors = new LinkedHashSet<>();

		/** Targets of the credential's scope as target_namespace/target_id; empty for every target. */
		private Set<String> targets = new LinkedHashSet<>();

		public String getPrincipal() {
			return this.principal;
		}

		public void setPrincipal(String principal) {
			this.principal = principal;
		}

		public String getCredentialId() {
			return this.credentialId;
		}

		public void setCredentialId(String credentialId) {
			this.credentialId = credentialId;
		}

		public String getSecretHash() {
			return this.secretHash;
		}

		public void setSecretHash(String secretHash) {
			this.secretHash = secretHash;
		}

		public CredentialKind getKind() {
			return this.kind;
		}

		public void setKind(CredentialKind kind) {
			this.kind = kind;
		}

		public Set<String> getCapabilities() {
			return this.capabilities;
		}

		public void setCapabilities(Set<String> capabilities) {
			this.capabilities = capabilities;
		}

		public String getTenant() {
			return this.tenant;
		}

		public void setTenant(String tenant) {
			this.tenant = tenant;
		}

		public Set<String> getPrograms() {
			return this.programs;
		}

		public void setPrograms(Set<String> programs) {
			this.programs = programs;
		}

		public Set<String> getActors() {
			return this.actors;
		}

		public void setActors(Set<String> actors) {
			this.actors = actors;
		}

		public Set<String> getTargets() {
			return this.targets;
		}

		public void setTargets(Set<String> targets) {
			this.targets = targets;
		}

	}

}
