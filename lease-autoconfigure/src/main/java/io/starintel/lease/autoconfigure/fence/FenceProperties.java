package io.starintel.lease.autoconfigure.fence;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of fenced writes ({@code starintel.lease.fence.*}).
 */
@ConfigurationProperties("starintel.lease.fence")
public class FenceProperties {

	/**
	 * Deadline of one commit authorization (and of the publisher confirm wait that follows it).
	 */
	private Duration authorizationTimeout = Duration.ofSeconds(2);

	private final Amqp amqp = new Amqp();

	private final CouchDb couchdb = new CouchDb();

	public Duration getAuthorizationTimeout() {
		return this.authorizationTimeout;
	}

	public void setAuthorizationTimeout(Duration authorizationTimeout) {
		this.authorizationTimeout = authorizationTimeout;
	}

	public Amqp getAmqp() {
		return this.amqp;
	}

	public CouchDb getCouchdb() {
		return this.couchdb;
	}

	/** RabbitMQ settings. */
	public static class Amqp {

		/**
		 * Whether the application's RabbitTemplate is a FencedRabbitTemplate.
		 */
		private boolean enabled = true;

		/**
		 * Exchanges whose publishes require a bound lease context.
		 */
		private List<String> fencedExchanges = new ArrayList<>();

		/**
		 * Queues (routing keys on the default exchange) whose publishes require a bound lease context.
		 */
		private List<String> fencedQueues = new ArrayList<>();

		private final Consumer consumer = new Consumer();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public List<String> getFencedExchanges() {
			return this.fencedExchanges;
		}

		public void setFencedExchanges(List<String> fencedExchanges) {
			this.fencedExchanges = fencedExchanges;
		}

		public List<String> getFencedQueues() {
			return this.fencedQueues;
		}

		public void setFencedQueues(List<String> fencedQueues) {
			this.fencedQueues = fencedQueues;
		}

		public Consumer getConsumer() {
			return this.consumer;
		}

	}

	/** Consumer-side guard settings: the (tenant, program) whose messages the listeners consume. */
	public static class Consumer {

		/**
		 * Tenant id of the consumed messages' lock identities.
		 */
		private @Nullable String tenantId;

		/**
		 * Program id of the consumed messages' lock identities.
		 */
		private @Nullable String programId;

		/**
		 * Whether messages without fence headers are rejected (else passed through unchecked).
		 */
		private boolean requireFence = true;

		public @Nullable String getTenantId() {
			return this.tenantId;
		}

		public void setTenantId(@Nullable String tenantId) {
			this.tenantId = tenantId;
		}

		public @Nullable String getProgramId() {
			return this.programId;
		}

		public void setProgramId(@Nullable String programId) {
			this.programId = programId;
		}

		public boolean isRequireFence() {
			return this.requireFence;
		}

		public void setRequireFence(boolean requireFence) {
			this.requireFence = requireFence;
		}

	}

	/** CouchDB settings. */
	public static class CouchDb {

		/**
		 * Whether the _design/starintel_fence design document is installed (idempotently) at start-up.
		 */
		private boolean installDesignDocument = true;

		public boolean isInstallDesignDocument() {
			return this.installDesignDocument;
		}

		public void setInstallDesignDocument(boolean installDesignDocument) {
			this.installDesignDocument = installDesignDocument;
		}

	}

}
