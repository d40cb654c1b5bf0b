package io.starintel.lease.it.fence;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.starintel.lease.test.TestServers;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FencedWriteRejectedException;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.fence.amqp.FenceHeaders;
import io.starintel.lease.fence.amqp.ConsumeRejection;
import io.starintel.lease.fence.amqp.internal.ConsumerRejectionRecorder;
import io.starintel.lease.fence.amqp.internal.MicrometerFenceRejectionMeter;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.starintel.lease.fence.amqp.internal.FencedListenerAdvice;
import io.starintel.lease.fence.amqp.FencedPublishRejectedException;
import io.starintel.lease.fence.amqp.FencedRabbitTemplate;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.it.redis.RedisServerKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.AsyncRabbitTemplate;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * RabbitMQ enforcement point against the real broker (its container, or 127.0.0.1:5672 guest/guest: lease-test-support's
 * {@code TestServers}) with leases in the real Redis
 * store (and the Valkey one: {@link ValkeyRabbitFenceTests}): publish-side refusal of expired and superseded holders, fence headers and confirms, and the consumer-side
 * guard dead-lettering a delayed lower-token message after the successor's message was accepted.
 */
class RabbitFenceTests {

	private FenceFixture fixture;

	private CachingConnectionFactory connectionFactory;

	private RabbitAdmin admin;

	private FencedRabbitTemplate template;

	private RabbitTemplate plain;

	private SimpleMessageListenerContainer container;

	private final List<Message> consumed = new CopyOnWriteArrayList<>();

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private final List<AuditEvent> audited = new CopyOnWriteArrayList<>();

	private final ConsumerRejectionRecorder rejections = new ConsumerRejectionRecorder(List.of(this.audited::add),
			new MicrometerFenceRejectionMeter(this.meters));

	private String work;

	private String dead;

	private String delay;

	/** A connection factory to the test broker, with publisher confirms and returns (what the fenced template uses). */
	static CachingConnectionFactory connectionFactory() {
		CachingConnectionFactory factory = new CachingConnectionFactory(TestServers.rabbitHost(), TestServers.rabbitPort());
		factory.setUsername("guest");
		factory.setPassword("guest");
		factory.setPublisherConfirmType(CachingConnectionFactory.ConfirmType.CORRELATED);
		factory.setPublisherReturns(true);
		return factory;
	}

	@BeforeEach
	void setUp() {
		this.fixture = new FenceFixture(RedisServerKind.of(getClass()));
		this.connectionFactory = connectionFactory();
		this.admin = new RabbitAdmin(this.connectionFactory);
		String suffix = UUID.randomUUID().toString().substring(0, 8);
		this.work = "fence-it-work-" + suffix;
		this.dead = "fence-it-dlq-" + suffix;
		this.delay = "fence-it-delay-" + suffix;
		this.admin.declareQueue(new Queue(this.dead, false, false, false));
		this.admin.declareQueue(QueueBuilder.nonDurable(this.work)
			.deadLetterExchange("")
			.deadLetterRoutingKey(this.dead)
			.build());
		// A's "delayed" message: parked here, then dead-lettered into the work queue after the TTL
		this.admin.declareQueue(QueueBuilder.nonDurable(this.delay)
			.ttl(2_500)
			.deadLetterExchange("")
			.deadLetterRoutingKey(this.work)
			.build());
		this.template = new FencedRabbitTemplate(this.connectionFactory, this.fixture.guard, Set.of(),
				Set.of(this.work, this.delay));
		this.plain = new RabbitTemplate(this.connectionFactory);
		this.container = new SimpleMessageListenerContainer(this.connectionFactory);
		this.container.setQueueNames(this.work);
		new FencedListenerAdvice(this.fixture.redis, ProgramScope.of(this.fixture.tenant, this.fixture.program), true,
				this.rejections)
			.fenceFirst(this.container);
		this.container.setMessageListener(this.consumed::add);
		this.container.start();
	}

	@AfterEach
	void tearDown() {
		this.container.stop();
		this.admin.deleteQueue(this.work);
		this.admin.deleteQueue(this.dead);
		this.admin.deleteQueue(this.delay);
		this.connectionFactory.destroy();
		this.fixture.close();
	}

	@Test
	void formerHolderPublishingAfterExpiryIsLeaseLostAndNothingReachesTheBroker() {
		LeaseContext a = this.fixture.acquire(this.fixture.identity("amqp-expiry"), "alice", 300);
		this.fixture.awaitExpired(a);
		try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
			assertThat(this.template.trySend("", this.work, message("late A")).outcome())
				.isEqualTo(FenceOutcome.LEASE_LOST);
			assertThatExceptionOfType(FencedWriteRejectedException.class)
				.isThrownBy(() -> this.template.convertAndSend(this.work, "late A again"))
				.satisfies(ex -> assertThat(ex.outcome()).isEqualTo(FenceOutcome.LEASE_LOST));
		}
		// a fenced destination without a context is refused as well
		assertThatExceptionOfType(FencedWriteRejectedException.class)
			.isThrownBy(() -> this.template.convertAndSend(this.work, "no context"))
			.satisfies(ex -> assertThat(ex.outcome()).isEqualTo(FenceOutcome.NO_LEASE_CONTEXT));
		// barrier: a valid holder's message is consumed; nothing refused arrived before it
		LeaseContext b = this.fixture.acquire(this.fixture.identity("amqp-expiry"), "bob", 5_000);
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			assertThat(this.template.trySend("", this.work, message("from B")).isAccepted()).isTrue();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> this.consumed.size() == 1);
		assertThat(body(this.consumed.get(0))).isEqualTo("from B");
	}

	@Test
	void formerHolderPublishingAfterNewAcquisitionIsRejectedAtPublish() {
		LeaseContext a = this.fixture.acquire(this.fixture.identity("amqp-successor"), "alice", 300);
		this.fixture.awaitExpired(a);
		LeaseContext b = this.fixture.acquire(this.fixture.identity("amqp-successor"), "bob", 5_000);
		FencedWriteResult fromB;
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			fromB = this.template.trySend("", this.work, message("from B"));
		}
		assertThat(fromB.isAccepted()).isTrue();
		try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
			assertThat(this.template.trySend("", this.work, message("late A")).outcome())
				.isEqualTo(FenceOutcome.LEASE_LOST);
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> this.consumed.size() == 1);
		Map<String, Object> headers = this.consumed.get(0).getMessageProperties().getHeaders();
		assertThat(headers.get(FenceHeaders.TOKEN)).isEqualTo(b.fencingToken());
		assertThat(headers.get(FenceHeaders.LOCK_KEY_DIGEST)).isEqualTo(b.identity().keyDigest());
		assertThat(headers.get(FenceHeaders.LEASE_ID)).isEqualTo(b.leaseId());
		assertThat(headers.get(FenceHeaders.EXECUTION_ID)).isEqualTo(b.executionId());
		assertThat(headers.get(FenceHeaders.TRACE_ID)).isEqualTo(b.traceId());
		assertThat(headers.values()).noneMatch(v -> String.valueOf(v).contains(b.lockKey()));
	}

	/**
	 * The template's publishes that do not go through {@code send}: the reply of {@code receiveAndReply}, the request
	 * of an {@code AsyncRabbitTemplate} over it (direct reply-to), {@code doSend} inside {@code execute}. A superseded
	 * holder's are refused before anything is sent, a fenced destination refuses them without a context, and the
	 * current holder's go out authorized and stamped.
	 */
	@Test
	void theTemplatesOtherPublishPathsAreFencedToo() throws Exception {
		String requests = "fence-it-requests-" + UUID.randomUUID().toString().substring(0, 8);
		this.admin.declareQueue(new Queue(requests, false, false, true));
		AsyncRabbitTemplate async = new AsyncRabbitTemplate(this.template);
		async.setReceiveTimeout(2_000);
		async.start();
		try {
			LeaseContext a = this.fixture.acquire(this.fixture.identity("amqp-other-paths"), "alice", 300);
			this.fixture.awaitExpired(a);
			LeaseContext b = this.fixture.acquire(this.fixture.identity("amqp-other-paths"), "bob", 5_000);
			for (int i = 1; i <= 3; i++) {
				this.plain.convertAndSend("", requests, "request " + i);
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.admin.getQueueInfo(requests).getMessageCount() == 3);
			try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
				assertRefused(() -> this.template.receiveAndReply(requests, (String in) -> "stale reply", "", this.work),
						FenceOutcome.LEASE_LOST);
				assertRefused(() -> this.template.execute((channel) -> {
					this.template.doSend(channel, "", this.work, message("stale doSend"), false, null);
					return null;
				}), FenceOutcome.LEASE_LOST);
				assertRefused(() -> async.sendAndReceive("", this.work, message("stale async")).get(10, TimeUnit.SECONDS),
						FenceOutcome.LEASE_LOST);
			}
			assertRefused(() -> this.template.receiveAndReply(requests, (String in) -> "reply without a context", "",
					this.work), FenceOutcome.NO_LEASE_CONTEXT);
			// each refused call took its request (received before the reply was refused); one request is left. The three
			// were published on cached channels, so their order in the queue is not the publishing order.
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.admin.getQueueInfo(requests).getMessageCount() == 1);
			try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
				assertThat(this.template.receiveAndReply(requests, (String in) -> "reply from B to " + in, "", this.work))
					.isTrue();
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> this.consumed.size() == 1);
			assertThat(this.consumed).extracting(RabbitFenceTests::body)
				.singleElement(InstanceOfAssertFactories.STRING)
				.startsWith("reply from B to request ");
			assertThat(this.consumed.get(0).getMessageProperties().getHeaders().get(FenceHeaders.TOKEN))
				.isEqualTo(b.fencingToken());
			assertThat(this.plain.receive(this.dead)).isNull();
		}
		finally {
			async.stop();
			this.admin.deleteQueue(requests);
		}
	}

	/** The call fails with a {@link FencedPublishRejectedException} of this outcome, itself or as a cause. */
	private static void assertRefused(ThrowingCallable call, FenceOutcome outcome) {
		Throwable thrown = catchThrowable(call);
		assertThat(thrown).as("refused").isNotNull();
		Throwable cause = thrown;
		while (cause != null && !(cause instanceof FencedPublishRejectedException)) {
			cause = cause.getCause();
		}
		assertThat(cause).as("a fenced refusal in %s", thrown).isInstanceOf(FencedPublishRejectedException.class);
		assertThat(((FencedPublishRejectedException) cause).result().outcome()).isEqualTo(outcome);
	}

	@Test
	void delayedLowerTokenMessageIsDeadLetteredAfterSuccessorsMessageWasAccepted() {
		LeaseContext a = this.fixture.acquire(this.fixture.identity("amqp-delayed"), "alice", 400);
		try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
			// authorized while A is valid, but delayed in flight
			assertThat(this.template.trySend("", this.delay, message("delayed A")).isAccepted()).isTrue();
		}
		this.fixture.awaitExpired(a);
		LeaseContext b = this.fixture.acquire(this.fixture.identity("amqp-delayed"), "bob", 5_000);
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			assertThat(this.template.trySend("", this.work, message("from B")).isAccepted()).isTrue();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> this.consumed.size() == 1);
		Message deadLettered = await().atMost(Duration.ofSeconds(15))
			.until(() -> this.plain.receive(this.dead), m -> m != null);
		assertThat(body(deadLettered)).isEqualTo("delayed A");
		assertThat(deadLettered.getMessageProperties().getHeaders().get(FenceHeaders.TOKEN))
			.isEqualTo(a.fencingToken());
		assertThat(this.consumed).extracting(RabbitFenceTests::body).containsExactly("from B");
		assertThat(this.rejections.count()).isEqualTo(1);
	}

	/**
	 * A message of a lease that ended, and whose identity has seen more leases since than its history ring keeps (16),
	 * is still the store's own lease: it raises the mark (the lease id resolves through its acquire's result, kept for
	 * the idempotency retention), never rejected as forged.
	 */
	@Test
	void delayedMessageOfALeaseThatLeftTheHistoryRingIsAcceptedNotForged() {
		LockIdentity identity = this.fixture.identity("amqp-ring");
		LeaseContext a = this.fixture.acquire(identity, "alice", 30_000);
		try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
			assertThat(this.template.trySend("", this.delay, message("delayed A")).isAccepted()).isTrue();
		}
		release(a);
		for (int i = 0; i < 20; i++) {
			release(this.fixture.acquire(identity, "worker-" + i, 30_000));
		}
		await().atMost(Duration.ofSeconds(15)).until(() -> this.consumed.size() == 1);
		assertThat(body(this.consumed.get(0))).isEqualTo("delayed A");
		assertThat(this.rejections.count()).isZero();
		assertThat(this.plain.receive(this.dead)).isNull();
	}

	private void release(LeaseContext context) {
		assertThat(this.fixture.store
			.release(new ReleaseRequest(context.handle(), Identifiers.generate("request"), Instant.now().plusSeconds(5)))
			.code()).isEqualTo(ResultCode.LEASE_RELEASED);
	}

	@Test
	void unroutableFencedPublishIsTypedNotAssumedDelivered() {
		LeaseContext b = this.fixture.acquire(this.fixture.identity("amqp-unroutable"), "bob", 5_000);
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			assertThat(this.template.trySend("", "fence-it-missing-" + UUID.randomUUID(), message("x")).outcome())
				.isEqualTo(FenceOutcome.UNROUTABLE);
		}
	}

	@Test
	void unfencedMessageOnFencedConsumerIsDeadLettered() {
		this.plain.convertAndSend(this.work, "no fence");
		Message deadLettered = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.plain.receive(this.dead), m -> m != null);
		assertThat(body(deadLettered)).isEqualTo("no fence");
		assertThat(this.consumed).isEmpty();
	}

	@Test
	void forgedHigherTokensAreRejectedWithoutRaisingTheMarkSoTheHoldersNextPublishIsConsumed() {
		LeaseContext other = this.fixture.acquire(this.fixture.identity("amqp-forged-other"), "carol", 30_000);
		LeaseContext b = this.fixture.acquire(this.fixture.identity("amqp-forged"), "bob", 30_000);
		// before B's first message: B's token (issued) under a lease id the store never issued
		this.plain.send(this.work, forged("forged unknown lease", b, b.fencingToken(), "lease_never_issued"));
		// another identity's real (lease id, token) under B's digest: issued, but not for B's identity
		this.plain.send(this.work, forged("forged other identity's pair", b, other.fencingToken(), other.leaseId()));
		// both judged before B's first message is sent: a check without a decision in time is redelivered (never a
		// rejection), and a redelivery judged after B 1 would meet B's mark (another reason)
		awaitDeadLetters(2);
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			assertThat(this.template.trySend("", this.work, message("B 1")).isAccepted()).isTrue();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> this.consumed.size() == 1);
		// one token above B's under B's lease id: B is the last lease, so above the issued counter
		this.plain.send(this.work, forged("forged next token", b, b.fencingToken() + 1, b.leaseId()));
		// B's own lease id with 2^53 - 2: above every token the store issued for the identity
		this.plain.send(this.work, forged("forged 2^53-2", b, (1L << 53) - 2, b.leaseId()));
		// B's current token under another lease id
		this.plain.send(this.work, forged("forged lease id", b, b.fencingToken(), "lease_other"));
		awaitDeadLetters(3);
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			assertThat(this.template.trySend("", this.work, message("B 2")).isAccepted()).isTrue();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> this.consumed.size() == 2);
		assertThat(this.consumed).extracting(RabbitFenceTests::body).containsExactly("B 1", "B 2");
		FencedListenerAdvice advice = new FencedListenerAdvice(this.fixture.redis,
				ProgramScope.of(this.fixture.tenant, this.fixture.program), true, this.rejections);
		assertThat(this.fixture.redis.<String, String>opsForHash()
			.get(advice.key(b.identity().keyDigest()), "hwm")).isEqualTo(Long.toString(b.fencingToken()));
		assertThat(counted(ConsumeRejection.FORGED_UNKNOWN_LEASE_ID)).isEqualTo(2);
		assertThat(counted(ConsumeRejection.FORGED_TOKEN_ABOVE_ISSUED_COUNTER)).isEqualTo(2);
		assertThat(counted(ConsumeRejection.FORGED_LEASE_ID_MISMATCH)).isEqualTo(1);
		assertThat(this.audited).hasSize(5).allSatisfy((event) -> {
			assertThat(event.eventType()).isEqualTo(AuditEventType.COMMIT_REJECTED);
			assertThat(event.programId()).isEqualTo(this.fixture.program);
			assertThat(event.reason()).startsWith("amqp_consume:forged_");
		});
	}

	void awaitDeadLetters(int count) {
		for (int i = 0; i < count; i++) {
			assertThat(await().atMost(Duration.ofSeconds(10)).until(() -> this.plain.receive(this.dead), m -> m != null))
				.isNotNull();
		}
	}

	double counted(ConsumeRejection reason) {
		io.micrometer.core.instrument.Counter counter = this.meters.find(MicrometerFenceRejectionMeter.COUNTER)
			.tag("reason", reason.wireName())
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	static Message forged(String text, LeaseContext victim, long token, String leaseId) {
		MessageProperties properties = new MessageProperties();
		properties.setHeader(FenceHeaders.TOKEN, token);
		properties.setHeader(FenceHeaders.LOCK_KEY_DIGEST, victim.identity().keyDigest());
		properties.setHeader(FenceHeaders.LEASE_ID, leaseId);
		properties.setHeader(FenceHeaders.TRACE_ID, "trace_forged");
		return new Message(text.getBytes(StandardCharsets.UTF_8), properties);
	}

	static Message message(String text) {
		return new Message(text.getBytes(StandardCharsets.UTF_8), new MessageProperties());
	}

	static String body(Message message) {
		return new String(message.getBody(), StandardCharsets.UTF_8);
	}

}
