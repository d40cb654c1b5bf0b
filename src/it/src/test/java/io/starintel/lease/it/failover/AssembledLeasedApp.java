package io.starintel.lease.it.failover;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.fence.amqp.FencedRabbitTemplate;
import io.starintel.lease.fence.checkpoint.CheckpointState;
import io.starintel.lease.fence.checkpoint.CheckpointStore;
import io.starintel.lease.fence.couchdb.FencedCouchDbConnector;
import io.starintel.lease.job.LeaseAcquisitionException;
import io.starintel.lease.job.LeaseLostEvent;
import io.starintel.lease.job.TargetLeased;
import io.starintel.lease.test.TestServers;
import org.ektorp.CouchDbConnector;
import org.ektorp.CouchDbInstance;
import org.ektorp.http.HttpClient;
import org.ektorp.http.StdHttpClient;
import org.ektorp.impl.StdCouchDbConnector;
import org.ektorp.impl.StdCouchDbInstance;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageBuilder;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A user's leased application for the failover suites, assembled as a user assembles it: the starter's whole
 * auto-configuration and nothing of ours declared by hand; the application declares an Ektorp connector (Apache
 * CouchDB), a queue, a {@code @RabbitListener}, an audit sink and listener of its own, and one job:
 * {@link Jobs#work(String)} acquires its lease, writes a checkpoint, a fenced CouchDB document and a fenced RabbitMQ
 * message, holds the lease until the test lets it finish (or it is cancelled), then writes a last checkpoint. The Redis
 * topology comes from Boot's {@code spring.data.redis.*} properties only.
 */
final class AssembledLeasedApp implements AutoCloseable {

	private final ConfigurableApplicationContext context;

	private final HttpClient couchHttp;

	private final CouchDbInstance couch;

	private final String database;

	private final Runs runs = new Runs();

	private AssembledLeasedApp(ConfigurableApplicationContext context, HttpClient couchHttp, CouchDbInstance couch,
			String database) {
		this.context = context;
		this.couchHttp = couchHttp;
		this.couch = couch;
		this.database = database;
		this.runs.jobs = context.getBean(Jobs.class);
	}

	/** Starts the application on {@code program} with the given {@code spring.data.redis.*} properties. */
	static AssembledLeasedApp start(String program, String... redisProperties) throws java.net.MalformedURLException {
		TestServers.CouchDb server = TestServers.apacheCouchDb();
		HttpClient http = new StdHttpClient.Builder().url(server.url())
			.username(server.user())
			.password(server.password())
			.caching(false)
			.build();
		CouchDbInstance couch = new StdCouchDbInstance(http);
		String suffix = UUID.randomUUID().toString().substring(0, 8);
		String database = "failover-app-" + suffix;
		couch.createDatabase(database);
		List<String> properties = new ArrayList<>(List.of(redisProperties));
		properties.addAll(List.of("spring.rabbitmq.host=" + TestServers.rabbitHost(),
				"spring.rabbitmq.port=" + TestServers.rabbitPort(),
				"spring.rabbitmq.publisher-confirm-type=correlated", "spring.rabbitmq.publisher-returns=true",
				"starintel.lease.tenant=tenant-failover", "starintel.lease.program=" + program,
				"starintel.lease.owner.service-principal=prn_failover_app",
				"starintel.lease.owner.service-instance-id=failover-app-1", "starintel.lease.ttl.minimum=100ms",
				"starintel.lease.fence.amqp.fenced-queues=failover-app-" + suffix,
				"starintel.lease.fence.amqp.consumer.tenant-id=tenant-failover",
				"starintel.lease.fence.amqp.consumer.program-id=" + program, "app.queue=failover-app-" + suffix,
				"app.database=" + database));
		ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
			.web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.initializers((applicationContext) -> applicationContext.getBeanFactory()
				.registerSingleton("couchDbInstance", couch))
			.properties(properties.toArray(String[]::new))
			.run();
		return new AssembledLeasedApp(context, http, couch, database);
	}

	Runs runs() {
		return this.runs;
	}

	<T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	List<LeaseLostEvent> lost() {
		return this.context.getBean(Events.class).lost;
	}

	List<Message> consumed() {
		return this.context.getBean(Consumed.class).messages;
	}

	boolean audited(AuditEventType type, String target) {
		return this.context.getBean(AuditEvents.class).has(type, target);
	}

	/**
	 * Checks what the holder of an ended lease gets once the clients follow the promoted node: its checkpoint write is
	 * refused as {@code lease_lost} (right after a promotion a write may find no route yet and answer
	 * {@code lease_backend_unavailable}: never accepted, and retried here until the answer is a decision).
	 */
	void assertFormerHolderRefused(LeaseContext holder) {
		CheckpointStore checkpoints = bean(CheckpointStore.class);
		FencedWriteResult stale = await("a stale write once the clients follow the promoted node")
			.atMost(Duration.ofSeconds(30))
			.until(() -> checkpoints.write(holder, CheckpointState.COMPLETED, "stale"),
					(result) -> result.outcome() != FenceOutcome.BACKEND_UNAVAILABLE);
		assertThat(stale.outcome()).as("the former holder's write: %s", stale).isEqualTo(FenceOutcome.LEASE_LOST);
	}

	/**
	 * What a promotion under the job's held lease must lead to: the job is cancelled, its later write and the former
	 * holder's writes are refused, and the job's next run is granted a higher token with every fenced write accepted.
	 */
	void assertPromotionEndedTheHolder(String target, LeaseContext holder) throws Exception {
		awaitLost(holder);
		JobRun cancelled = this.runs.ended(target);
		assertThat(cancelled.interrupted()).as("the job was interrupted").isTrue();
		assertThat(cancelled.late().isAccepted()).as("its later checkpoint write: %s", cancelled.late()).isFalse();
		assertFormerHolderRefused(holder);
		LeaseContext successor = this.runs.startUntilRunning(target);
		assertThat(successor.fencingToken()).isGreaterThan(holder.fencingToken());
		this.runs.finish(target).assertAllAccepted();
	}

	/** Waits until the job's lease of {@code holder} is reported lost (the renewal scheduler cancels the job). */
	void awaitLost(LeaseContext holder) {
		await("the holder is cancelled").atMost(Duration.ofSeconds(30))
			.until(() -> lost().stream().anyMatch((event) -> event.context().leaseId().equals(holder.leaseId())));
	}

	@Override
	public void close() {
		this.runs.releaseAll();
		this.context.close();
		this.couch.deleteDatabase(this.database);
		this.couchHttp.shutdown();
	}

	/** What one run of the job did. */
	record JobRun(LeaseContext context, FencedWriteResult checkpoint, FencedWriteResult document,
			FencedWriteResult publish, FencedWriteResult late, boolean interrupted) {

		void assertAllAccepted() {
			assertThat(this.checkpoint.outcome()).as("checkpoint").isEqualTo(FenceOutcome.ACCEPTED);
			assertThat(this.document.outcome()).as("fenced CouchDB write").isEqualTo(FenceOutcome.ACCEPTED);
			assertThat(this.publish.outcome()).as("fenced publish").isEqualTo(FenceOutcome.ACCEPTED);
			assertThat(this.late.outcome()).as("the last checkpoint").isEqualTo(FenceOutcome.ACCEPTED);
			assertThat(this.interrupted).isFalse();
		}

	}

	/** The test's side of the job: starts runs through the application's proxy and sees what they did. */
	static final class Runs {

		private final Map<String, LeaseContext> started = new ConcurrentHashMap<>();

		private final Map<String, CountDownLatch> finish = new ConcurrentHashMap<>();

		private final Map<String, CompletableFuture<JobRun>> runs = new ConcurrentHashMap<>();

		private final ExecutorService executor = Executors.newCachedThreadPool();

		private Jobs jobs;

		CompletableFuture<JobRun> start(String target) {
			this.finish.put(target, new CountDownLatch(1));
			this.started.remove(target);
			Jobs proxy = this.jobs;
			CompletableFuture<JobRun> run = CompletableFuture.supplyAsync(() -> proxy.work(target, this),
					this.executor);
			this.runs.put(target, run);
			return run;
		}

		/** The lease the job's current run holds, once it has made its writes (a run that fails fails the wait). */
		LeaseContext awaitStarted(String target) {
			return await("the job of " + target + " runs under its lease").atMost(Duration.ofSeconds(30))
				.until(() -> {
					CompletableFuture<JobRun> run = this.runs.get(target);
					if (run.isCompletedExceptionally()) {
						run.join();
					}
					return this.started.get(target);
				}, (context) -> context != null);
		}

		/**
		 * Starts runs of the job until one holds its lease, within 30 s: right after a promotion the shard may refuse
		 * before acquiring ({@code lease_backend_unavailable}, e.g. {@code replicas_unavailable} until the restarted
		 * node is counted as its replica: a retryable answer, as a user's next run would get); any other failure
		 * fails the wait.
		 */
		LeaseContext startUntilRunning(String target) {
			return await("a run of " + target + " holds its lease after the promotion").atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(200))
				.until(() -> startOnce(target), (context) -> context != null);
		}

		/** One run: its lease once it holds it, or null when it was refused before acquiring (backend unavailable). */
		private @Nullable LeaseContext startOnce(String target) {
			CompletableFuture<JobRun> run = start(target);
			await("the run of " + target + " holds its lease or was refused").atMost(Duration.ofSeconds(30))
				.until(() -> run.isDone() || this.started.get(target) != null);
			LeaseContext context = this.started.get(target);
			if (context != null) {
				return context;
			}
			try {
				run.join();
			}
			catch (CompletionException ex) {
				if (ex.getCause() instanceof LeaseAcquisitionException refused
						&& refused.code() == ResultCode.LEASE_BACKEND_UNAVAILABLE) {
					return null;
				}
				throw ex;
			}
			throw new AssertionError("the run of " + target + " ended without holding its lease");
		}

		/** Lets the job's current run finish and returns what it did. */
		JobRun finish(String target) throws Exception {
			this.finish.get(target).countDown();
			return this.runs.get(target).get(30, TimeUnit.SECONDS);
		}

		/** What the job's current run did, once it ended by itself (cancelled). */
		JobRun ended(String target) throws Exception {
			return this.runs.get(target).get(30, TimeUnit.SECONDS);
		}

		void releaseAll() {
			this.finish.values().forEach(CountDownLatch::countDown);
			this.executor.shutdownNow();
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		CouchDbConnector couchDbConnector(Environment environment, CouchDbInstance couchDbInstance) {
			return new StdCouchDbConnector(environment.getRequiredProperty("app.database"), couchDbInstance);
		}

		@Bean
		Queue workQueue(Environment environment) {
			return new Queue(environment.getRequiredProperty("app.queue"), false, false, true);
		}

		@Bean
		Consumed consumed() {
			return new Consumed();
		}

		@Bean
		Events events() {
			return new Events();
		}

		@Bean
		AuditEvents auditEvents() {
			return new AuditEvents();
		}

		@Bean
		Jobs jobs(CheckpointStore checkpoints,
				@Qualifier("fencedCouchDbConnector") FencedCouchDbConnector documents, FencedRabbitTemplate rabbit,
				Environment environment) {
			return new Jobs(checkpoints, documents, rabbit, environment.getRequiredProperty("app.queue"));
		}

	}

	static class Consumed {

		final List<Message> messages = new CopyOnWriteArrayList<>();

		@RabbitListener(queues = "${app.queue}")
		void on(Message message) {
			this.messages.add(message);
		}

	}

	static class Events {

		final List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();

		@EventListener
		void on(LeaseLostEvent event) {
			this.lost.add(event);
		}

	}

	/** The application's own audit sink, next to the starter's. */
	static class AuditEvents implements AuditSink {

		final List<AuditEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void record(AuditEvent event) {
			this.events.add(event);
		}

		boolean has(AuditEventType type, String target) {
			return this.events.stream()
				.anyMatch((event) -> event.eventType() == type && target.equals(event.targetId()));
		}

	}

	static class Jobs {

		private final CheckpointStore checkpoints;

		private final FencedCouchDbConnector documents;

		private final FencedRabbitTemplate rabbit;

		private final String queue;

		Jobs(CheckpointStore checkpoints, FencedCouchDbConnector documents, FencedRabbitTemplate rabbit,
				String queue) {
			this.checkpoints = checkpoints;
			this.documents = documents;
			this.rabbit = rabbit;
			this.queue = queue;
		}

		@TargetLeased(target = "#target", actor = "usernamegen", ttl = "2s", maxLifetime = "2m")
		public JobRun work(String target, Runs runs) {
			LeaseContext context = LeaseContext.current().orElseThrow();
			FencedWriteResult checkpoint = this.checkpoints.writeCurrent(CheckpointState.IN_PROGRESS, "started");
			FencedWriteResult document = this.documents
				.tryCreate(new HashMap<>(Map.of("_id", target + "-" + context.fencingToken(), "value", target)));
			FencedWriteResult publish = this.rabbit.trySend("", this.queue,
					MessageBuilder.withBody(target.getBytes(StandardCharsets.UTF_8)).build());
			runs.started.put(target, context);
			boolean interrupted = false;
			try {
				runs.finish.get(target).await(60, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
			FencedWriteResult late = this.checkpoints.writeCurrent(CheckpointState.COMPLETED, "done");
			return new JobRun(context, checkpoint, document, publish, late, interrupted);
		}

	}

}
