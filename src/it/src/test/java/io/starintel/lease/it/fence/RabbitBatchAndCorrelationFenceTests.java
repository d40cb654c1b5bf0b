package io.starintel.lease.it.fence;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.core.BatchMessageListener;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.batch.MessageBatch;
import org.springframework.amqp.rabbit.batch.SimpleBatchingStrategy;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.rabbit.core.BatchingRabbitTemplate;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FencedWriteRejectedException;
import io.starintel.lease.fence.amqp.ConsumeRejection;
import io.starintel.lease.fence.amqp.FenceHeaders;
import io.starintel.lease.fence.amqp.FencedPublishRejectedException;
import io.starintel.lease.fence.amqp.FencedRabbitTemplate;
import io.starintel.lease.fence.amqp.FencingMessagePostProcessor;
import io.starintel.lease.fence.amqp.internal.ConsumerRejectionRecorder;
import io.starintel.lease.fence.amqp.internal.FencedListenerAdvice;
import io.starintel.lease.fence.amqp.internal.MicrometerFenceRejectionMeter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Against the real broker and the real Redis lease store: producer batches ({@code BatchingRabbitTemplate}) are never
 * fenced, on the publish side (a batch is released by whichever thread comes next, so stamping it there would put
 * that thread's lease on a stale holder's messages) nor on the consumer side (one stamp never passes a batch); and a
 * {@code CorrelationData} already used is refused by the fenced template instead of reporting the earlier publish's
 * confirm as this one's.
 */
class RabbitBatchAndCorrelationFenceTests {

	private FenceFixture fixture;

	private CachingConnectionFactory connectionFactory;

	private RabbitAdmin admin;

	private FencedRabbitTemplate template;

	private RabbitTemplate plain;

	private SimpleMessageListenerContainer container;

	private ThreadPoolTaskScheduler scheduler;

	private final List<Message> consumed = new CopyOnWriteArrayList<>();

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private final ConsumerRejectionRecorder rejections = new ConsumerRejectionRecorder(List.of(),
			new MicrometerFenceRejectionMeter(this.meters));

	private String work;

	private String other;

	private String dead;

	@BeforeEach
	void setUp() {
		this.fixture = new FenceFixture();
		this.connectionFactory = RabbitFenceTests.connectionFactory();
		this.admin = new RabbitAdmin(this.connectionFactory);
		String suffix = UUID.randomUUID().toString().substring(0, 8);
		this.work = "fence-it-batch-work-" + suffix;
		this.other = "fence-it-batch-other-" + suffix;
		this.dead = "fence-it-batch-dlq-" + suffix;
		this.admin.declareQueue(new Queue(this.dead, false, false, false));
		this.admin.declareQueue(new Queue(this.other, false, false, false));
		this.admin.declareQueue(
				QueueBuilder.nonDurable(this.work).deadLetterExchange("").deadLetterRoutingKey(this.dead).build());
		this.template = new FencedRabbitTemplate(this.connectionFactory, this.fixture.guard, Set.of(),
				Set.of(this.work));
		this.plain = new RabbitTemplate(this.connectionFactory);
		this.scheduler = new ThreadPoolTaskScheduler();
		this.scheduler.initialize();
		this.container = new SimpleMessageListenerContainer(this.connectionFactory);
		this.container.setQueueNames(this.work);
		this.container.setMessageListener(this.consumed::add);
	}

	@AfterEach
	void tearDown() {
		this.container.stop();
		this.scheduler.shutdown();
		this.admin.deleteQueue(this.work);
		this.admin.deleteQueue(this.other);
		this.admin.deleteQueue(this.dead);
		this.connectionFactory.destroy();
		this.fixture.close();
	}

	/**
	 * The probe's case, with the post-processor added by hand ("Outside Boot"): a revoked holder's batched send only
	 * buffers; the current holder of another target completes the batch, and its publish is refused (nothing sent),
	 * so the fenced consumer never sees the stale message under that holder's token.
	 */
	@Test
	void aStaleHoldersBatchedMessageIsNeverPublishedUnderTheHolderThatReleasesTheBatch() {
		startFencedConsumer();
		BatchingRabbitTemplate batching = batchingTemplate();
		LeaseContext a = this.fixture.acquire(this.fixture.identity("batch-stale"), "alice", 30_000);
		release(a);
		this.fixture.acquire(this.fixture.identity("batch-stale"), "bob", 30_000);
		try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
			// returns normally: it only buffers
			batching.convertAndSend("", this.work, "A stale via batching");
		}
		LeaseContext d = this.fixture.acquire(this.fixture.identity("batch-other-target"), "dave", 30_000);
		try (LeaseContext.Scope scope = LeaseContext.bind(d)) {
			assertRefused(() -> batching.convertAndSend("", this.work, "D via batching"), FenceOutcome.INVALID_REQUEST);
			// barrier: D's fenced publish is consumed; nothing from the batch arrived before it
			assertThat(this.template.trySend("", this.work, RabbitFenceTests.message("D barrier")).isAccepted())
				.isTrue();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.consumed.isEmpty());
		assertThat(this.consumed).extracting(RabbitFenceTests::body).containsExactly("D barrier");
		assertThat(this.plain.receive(this.dead)).isNull();
	}

	/**
	 * A batch of one message is released as it is, without the batch header: here the current holder's
	 * {@code flush()} releases the stale holder's pending message (so would its send that overflows the buffer limit,
	 * or the template's scheduler). It is refused as well (the release runs inside the batching template), so it is
	 * not stamped with the current holder's lease.
	 */
	@Test
	void aStaleHoldersBatchOfOneReleasedByAnotherHolderIsRefusedToo() {
		startFencedConsumer();
		BatchingRabbitTemplate batching = batchingTemplate();
		LeaseContext a = this.fixture.acquire(this.fixture.identity("batch-one"), "alice", 30_000);
		release(a);
		try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
			batching.convertAndSend("", this.work, "A stale, alone in its batch");
		}
		LeaseContext d = this.fixture.acquire(this.fixture.identity("batch-one-other"), "dave", 30_000);
		try (LeaseContext.Scope scope = LeaseContext.bind(d)) {
			assertRefused(batching::flush, FenceOutcome.INVALID_REQUEST);
			assertThat(this.template.trySend("", this.work, RabbitFenceTests.message("D barrier")).isAccepted())
				.isTrue();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.consumed.isEmpty());
		assertThat(this.consumed).extracting(RabbitFenceTests::body).containsExactly("D barrier");
		assertThat(this.plain.receive(this.dead)).isNull();
	}

	/** A message marked as a producer batch is refused before it is authorized or sent, on both fenced publish paths. */
	@Test
	void aMessageMarkedAsABatchIsRefusedByThePostProcessorAndByTheFencedTemplate() {
		RabbitTemplate fencedByHand = new RabbitTemplate(this.connectionFactory);
		fencedByHand.addBeforePublishPostProcessors(
				new FencingMessagePostProcessor(this.fixture.guard, Set.of(), Set.of(this.work)));
		LeaseContext b = this.fixture.acquire(this.fixture.identity("batch-marked"), "bob", 30_000);
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			MessageBatch batch = batch(null);
			assertRefused(() -> fencedByHand.send(batch.exchange(), batch.routingKey(), batch.message()),
					FenceOutcome.INVALID_REQUEST);
			assertThat(this.template.trySend(batch.exchange(), batch.routingKey(), batch(null).message()).outcome())
				.isEqualTo(FenceOutcome.INVALID_REQUEST);
		}
		assertThat(this.admin.getQueueInfo(this.work).getMessageCount()).isZero();
	}

	/**
	 * A batch stamped by a valid holder (as a publisher without this fix, or one stamping by hand, could send) is
	 * rejected whole by the consumer fence, as {@code batched_message}: one stamp cannot vouch for each message.
	 */
	@Test
	void aStampedBatchIsRejectedAtConsumption() {
		startFencedConsumer();
		LeaseContext b = this.fixture.acquire(this.fixture.identity("batch-consume"), "bob", 30_000);
		MessageBatch batch = batch(b);
		this.plain.send(batch.exchange(), batch.routingKey(), batch.message());
		Message deadLettered = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.plain.receive(this.dead), (m) -> m != null);
		assertThat(deadLettered.getMessageProperties().getHeaders()).containsKey(FenceHeaders.TOKEN);
		assertThat(this.consumed).isEmpty();
		assertThat(counted(ConsumeRejection.BATCHED_MESSAGE)).isEqualTo(1);
		// the same holder's own publish is consumed
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			assertThat(this.template.trySend("", this.work, RabbitFenceTests.message("B 1")).isAccepted()).isTrue();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.consumed.isEmpty());
		assertThat(this.consumed).extracting(RabbitFenceTests::body).containsExactly("B 1");
	}

	/**
	 * With a consumer batch the container debatches a producer batch before the fence sees it: its fragments keep
	 * only the {@code amqp_batchSize} header, and are rejected all the same.
	 */
	@Test
	void aStampedBatchDebatchedIntoAConsumerBatchIsRejectedToo() {
		List<List<String>> batches = new CopyOnWriteArrayList<>();
		this.container.setConsumerBatchEnabled(true);
		this.container.setBatchSize(5);
		this.container.setMessageListener(
				(BatchMessageListener) (messages) -> batches.add(messages.stream().map(RabbitFenceTests::body).toList()));
		startFencedConsumer();
		LeaseContext b = this.fixture.acquire(this.fixture.identity("batch-consumer-batch"), "bob", 30_000);
		MessageBatch batch = batch(b);
		this.plain.send(batch.exchange(), batch.routingKey(), batch.message());
		assertThat(await().atMost(Duration.ofSeconds(10)).until(() -> this.plain.receive(this.dead), (m) -> m != null))
			.isNotNull();
		assertThat(counted(ConsumeRejection.BATCHED_MESSAGE)).isEqualTo(2);
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			assertThat(this.template.trySend("", this.work, RabbitFenceTests.message("B 1")).isAccepted()).isTrue();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> !batches.isEmpty());
		assertThat(batches).containsExactly(List.of("B 1"));
	}

	/**
	 * The probe's case: a {@code CorrelationData} used for a routable publish, then for an unroutable one, reported
	 * the second as accepted (its future was complete already). Now it is refused before anything is sent, and so is
	 * one completed by another template; a fresh one still reports the unroutable publish.
	 */
	@Test
	void aCorrelationDataAlreadyUsedIsRefusedBeforeAnythingIsSent() {
		LeaseContext b = this.fixture.acquire(this.fixture.identity("correlation"), "bob", 30_000);
		String missing = "fence-it-missing-" + UUID.randomUUID();
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			CorrelationData correlation = new CorrelationData();
			this.template.send("", this.other, RabbitFenceTests.message("first"), correlation);
			assertThat(correlation.getFuture()).isDone();
			assertThatExceptionOfType(FencedWriteRejectedException.class)
				.isThrownBy(() -> this.template.send("", missing, RabbitFenceTests.message("unroutable"), correlation))
				.satisfies((ex) -> assertThat(ex.outcome()).isEqualTo(FenceOutcome.INVALID_REQUEST));
			assertThatExceptionOfType(FencedWriteRejectedException.class)
				.isThrownBy(() -> this.template.send("", this.other, RabbitFenceTests.message("again"), correlation))
				.satisfies((ex) -> assertThat(ex.outcome()).isEqualTo(FenceOutcome.INVALID_REQUEST));
			assertThatExceptionOfType(FencedWriteRejectedException.class)
				.isThrownBy(() -> this.template.send("", missing, RabbitFenceTests.message("fresh"),
						new CorrelationData()))
				.satisfies((ex) -> assertThat(ex.outcome()).isEqualTo(FenceOutcome.UNROUTABLE));
		}
		// a correlation whose confirm another template's publish completed
		CorrelationData elsewhere = new CorrelationData();
		this.plain.send("", this.other, RabbitFenceTests.message("plain"), elsewhere);
		await().atMost(Duration.ofSeconds(10)).until(() -> elsewhere.getFuture().isDone());
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			assertThatExceptionOfType(FencedWriteRejectedException.class)
				.isThrownBy(() -> this.template.send("", missing, RabbitFenceTests.message("reused"), elsewhere))
				.satisfies((ex) -> assertThat(ex.outcome()).isEqualTo(FenceOutcome.INVALID_REQUEST));
		}
		List<String> delivered = new CopyOnWriteArrayList<>();
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			Message message = this.plain.receive(this.other);
			if (message != null) {
				delivered.add(RabbitFenceTests.body(message));
			}
			return delivered.size() >= 2;
		});
		assertThat(delivered).containsExactly("first", "plain");
		assertThat(this.plain.receive(this.other)).isNull();
	}

	/** A correlation refused because its lease is lost was never sent: the holder of a new lease may use it. */
	@Test
	void aCorrelationDataOfARefusedPublishIsStillUnused() {
		LeaseContext a = this.fixture.acquire(this.fixture.identity("correlation-refused"), "alice", 30_000);
		release(a);
		CorrelationData correlation = new CorrelationData();
		try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
			assertThatExceptionOfType(FencedWriteRejectedException.class)
				.isThrownBy(() -> this.template.send("", this.other, RabbitFenceTests.message("stale"), correlation))
				.satisfies((ex) -> assertThat(ex.outcome()).isEqualTo(FenceOutcome.LEASE_LOST));
		}
		LeaseContext b = this.fixture.acquire(this.fixture.identity("correlation-refused"), "bob", 30_000);
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			this.template.send("", this.other, RabbitFenceTests.message("current"), correlation);
		}
		assertThat(correlation.getFuture()).isDone();
		Message received = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.plain.receive(this.other), (m) -> m != null);
		assertThat(RabbitFenceTests.body(received)).isEqualTo("current");
	}

	private void startFencedConsumer() {
		new FencedListenerAdvice(this.fixture.redis, ProgramScope.of(this.fixture.tenant, this.fixture.program), true,
				this.rejections)
			.fenceFirst(this.container);
		this.container.start();
	}

	/** A batching template fenced by hand, as docs/fencing.md's "Outside Boot" says: batches of two. */
	private BatchingRabbitTemplate batchingTemplate() {
		BatchingRabbitTemplate batching = new BatchingRabbitTemplate(this.connectionFactory,
				new SimpleBatchingStrategy(2, 100_000, 60_000), this.scheduler);
		batching.addBeforePublishPostProcessors(
				new FencingMessagePostProcessor(this.fixture.guard, Set.of(), Set.of(this.work)));
		return batching;
	}

	/** A batch of two messages to the work queue, as Spring AMQP assembles it; stamped by {@code holder} if given. */
	private MessageBatch batch(LeaseContext holder) {
		SimpleBatchingStrategy strategy = new SimpleBatchingStrategy(2, 100_000, 60_000);
		Message first = RabbitFenceTests.message("batched 1");
		if (holder != null) {
			FenceHeaders.apply(first.getMessageProperties(), this.fixture.guard.authorize(holder).requireStamp());
		}
		assertThat(strategy.addToBatch("", this.work, first)).isNull();
		MessageBatch batch = strategy.addToBatch("", this.work, RabbitFenceTests.message("batched 2"));
		assertThat(batch).isNotNull();
		Map<String, Object> headers = batch.message().getMessageProperties().getHeaders();
		assertThat(headers).containsKey(MessageProperties.SPRING_BATCH_FORMAT);
		return batch;
	}

	private void release(LeaseContext context) {
		assertThat(this.fixture.store
			.release(new ReleaseRequest(context.handle(), Identifiers.generate("request"), Instant.now().plusSeconds(5)))
			.code()).isEqualTo(ResultCode.LEASE_RELEASED);
	}

	private double counted(ConsumeRejection reason) {
		Counter counter = this.meters.find(MicrometerFenceRejectionMeter.COUNTER)
			.tag("reason", reason.wireName())
			.counter();
		return (counter != null) ? counter.count() : 0;
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

}
