package io.starintel.lease.autoconfigure.fence;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import io.starintel.lease.core.internal.PropertyProblems;

/**
 * Configuration of fenced writes ({@code starintel.lease.fence.*}).
 *
 * @param authorizationTimeout Deadline of one commit authorization (and of the publisher confirm wait that follows
 * it).
 * @param amqp RabbitMQ settings.
 * @param couchdb CouchDB settings.
 */
@ConfigurationProperties("starintel.lease.fence")
public record FenceProperties(@DefaultValue("2s") Duration authorizationTimeout, @DefaultValue Amqp amqp,
		@DefaultValue CouchDb couchdb) {

	/** Validates the values, naming each property at fault (the fence guard built from them would name none). */
	public FenceProperties {
		PropertyProblems problems = new PropertyProblems("starintel.lease.fence.");
		problems.positive("authorization-timeout", authorizationTimeout);
		problems.throwIfAny("Set each property listed under starintel.lease.fence.*; see docs/fencing.md.");
	}

	/**
	 * RabbitMQ settings.
	 *
	 * @param enabled Whether the application's RabbitTemplate is a FencedRabbitTemplate.
	 * @param fencedExchanges Exchanges whose publishes require a bound lease context.
	 * @param fencedQueues Queues (routing keys on the default exchange) whose publishes require a bound lease
	 * context.
	 * @param consumer Consumer-side guard settings.
	 * @param fenceUserTemplates Whether RabbitTemplate beans the application declares itself (which make the
	 * auto-configured FencedRabbitTemplate back off) are fenced too, by a before-publish post-processor; when false
	 * they publish unfenced and start-up logs a warning naming each. A BatchingRabbitTemplate bean is never fenced
	 * (a batch cannot be authorized message by message); start-up logs a warning naming it.
	 */
	public record Amqp(@DefaultValue("true") boolean enabled, @DefaultValue List<String> fencedExchanges,
			@DefaultValue List<String> fencedQueues, @DefaultValue Consumer consumer,
			@DefaultValue("true") boolean fenceUserTemplates) {

	}

	/**
	 * Consumer-side guard settings: the (tenant, program) whose messages the listeners consume.
	 *
	 * @param tenantId Tenant id of the consumed messages' lock identities.
	 * @param programId Program id of the consumed messages' lock identities.
	 * @param requireFence Whether messages without fence headers are rejected (else passed through unchecked).
	 */
	public record Consumer(@Nullable String tenantId, @Nullable String programId,
			@DefaultValue("true") boolean requireFence) {

	}

	/**
	 * CouchDB settings.
	 *
	 * @param installDesignDocument Whether the _design/starintel_fence design document is installed (idempotently)
	 * at start-up.
	 * @param recovery The CouchDB user that repairs documents with a forged fence.
	 */
	public record CouchDb(@DefaultValue("true") boolean installDesignDocument, @DefaultValue Recovery recovery) {

	}

	/**
	 * The CouchDB user of forged-fence recoveries (FencedDocumentRecovery, the admin endpoint's
	 * recover-document): a user with the role starintel_fence_recovery, kept apart from the application's own
	 * CouchDB user (which must not have the role). No recovery without a username.
	 *
	 * @param username Name of the CouchDB user with the role starintel_fence_recovery.
	 * @param password Password of that user.
	 */
	public record Recovery(@Nullable String username, @Nullable String password) {

	}

}
