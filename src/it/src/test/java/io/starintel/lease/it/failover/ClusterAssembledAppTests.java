package io.starintel.lease.it.failover;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.fence.amqp.FenceHeaders;
import io.starintel.lease.fence.amqp.FencedRabbitTemplate;
import io.starintel.lease.fence.checkpoint.CheckpointState;
import io.starintel.lease.fence.checkpoint.RedisCheckpointStore;
import io.starintel.lease.fence.couchdb.FencedCouchDbConnector;
import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.job.LeaseLostEvent;
import io.starintel.lease.job.TargetLeased;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.test.TestServers;
import org.ektorp.CouchDbConnector;
import org.ektorp.CouchDbInstance;
import org.ektorp.http.StdHttpClient;
import org.ektorp.impl.StdCouchDbConnector;
import org.ektorp.impl.StdCouchDbInstance;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

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

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 35's Redis Cluster row, as a user assembles it: an application with the starter's whole auto-configuration
 * and nothing of ours declared by hand, whose Redis is a 3-primary cluster with a replica per primary configured
 * through Boot's {@code spring.data.redis.cluster.*} properties only ({@link ReplicatedCluster}). A leased job
 * acquires and renews its lease, writes a checkpoint, a fenced CouchDB document (whose durable mark the store raises on
 * the cluster) and a fenced RabbitMQ message that the application's own {@code @RabbitListener} consumes through the
 * consume fence; the audit events reach the application's sink. Then a graceful {@code CLUSTER FAILOVER} promotes the
 * replica of the shard that serves the program while a job holds its lease: the documented automatic recovery ends
 * that lease on first contact with the promoted node, the job is cancelled, its later checkpoint write is refused, and
 * the next run of the job is granted a higher token on the promoted node. The same after a kill -9 of that primary
 * (the cluster promotes the replica; the killed node rejoins empty as its replica, since a shard acknowledges no
 * change without one).
 */
class ClusterAssembledAppTests {

	private static ReplicatedCluster cluster;

	private static ConfigurableApplicationContext app;

	private static CouchDbInstance couch;

	private static org.ektorp.http.HttpClient couchHttp;

	private static String database;

	private static int primary;

	private static String program;

	private static final String QUEUE = "cluster-it-" + UUID.randomUUID().toString().substring(0, 8);

	@BeforeAll
	static void start(TestInfo testInfo) throws Exception {
		cluster = ReplicatedCluster.start(RedisServerKind.of(testInfo));
		primary = await("a primary with an in-sync replica").atMost(Duration.ofSeconds(60))
			.ignoreExceptions()
			.until(() -> cluster.healthyPrimaries().get(0), (port) -> port > 0);
		program = cluster.programOn(primary);
		TestServers.CouchDb server = TestServers.apacheCouchDb();
		couchHttp = new StdHttpClient.Builder().url(server.url())
			.username(server.user())
			.password(server.password())
			.caching(false)
			.build();
		couch = new StdCouchDbInstance(couchHttp);
		database = "cluster-it-" + UUID.randomUUID().toString().substring(0, 8);
		couch.createDatabase(database);
		String nodes = cluster.ports()
			.stream()
			.map((port) -> "127.0.0.1:" + port)
			.collect(Collectors.joining(","));
		app = new SpringApplicationBuilder(ClusterLeasedApp.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.properties("spring.data.redis.cluster.nodes=" + nodes,
					"spring.data.redis.lettuce.cluster.refresh.period=1s",
					"spring.data.redis.lettuce.cluster.refresh.adaptive=true",
					"spring.rabbitmq.host=" + TestServers.rabbitHost(),
					"spring.rabbitmq.port=" + TestServers.rabbitPort(),
					"spring.rabbitmq.publisher-confirm-type=correlated", "spring.rabbitmq.publisher-returns=true", "starintel.lease.tenant=tenant-cluster",
					"starintel.lease.program=" + program, "starintel.lease.owner.service-principal=prn_cluster_it",
					"starintel.lease.owner.service-instance-id=cluster-app-1", "starintel.lease.ttl.minimum=100ms",
					"starintel.lease.fence.amqp.fenced-queues=" + QUEUE,
					"starintel.lease.fence.amqp.consumer.tenant-id=tenant-cluster",
					"starintel.lease.fence.amqp.consumer.program-id=" + program, "cluster.it.queue=" + QUEUE,
					"cluster.it.database=" + database)
			.run();
	}

	@AfterAll
	static void stop() {
		if (app != null) {
			app.getBean(Runs.class).releaseAll();
			app.close();
		}
		if (couch != null) {
			couch.deleteDatabase(database);
			couchHttp.shutdown();
		}
		if (cluster != null) {
			cluster.close();
		}
	}

	@Test
	void everyStoreAndFencePathWorksThroughBootsClusterProperties() throws Exception {
		Runs jobs = app.getBean(Runs.class);
		String target = "target-" + UUID.randomUUID().toString().substring(0, 8);
		CompletableFuture<JobRun> run = jobs.start(target);
		LeaseContext context = jobs.awaitStarted(target);
		Instant firstExpiry = context.expiresAt();
		assertThat(cluster.primaryOf(context.identity().scope())).as("the program's shard").isEqualTo(primary);
		await("a renewal on the cluster").atMost(Duration.ofSeconds(20))
			.until(() -> context.expiresAt().isAfter(firstExpiry));
		assertThat(context.isLost()).isFalse();
		jobs.finish(target);
		JobRun done = run.get(30, TimeUnit.SECONDS);
		assertThat(done.checkpoint().outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		assertThat(done.document().outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		assertThat(done.publish().outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		assertThat(done.late().outcome()).as("a write of the live holder at the end").isEqualTo(FenceOutcome.ACCEPTED);
		assertThat(done.interrupted()).isFalse();
		Consumed consumed = app.getBean(Consumed.class);
		await("the fenced message consumed").atMost(Duration.ofSeconds(10))
			.until(() -> consumed.messages.stream().anyMatch((message) -> target.equals(body(message))));
		Message message = consumed.messages.stream().filter((m) -> target.equals(body(m))).findFirst().orElseThrow();
		assertThat(message.getMessageProperties().getHeaders().get(FenceHeaders.TOKEN))
			.isEqualTo(context.fencingToken());
		LeaseStore store = app.getBean(LeaseStore.class);
		assertThat(store.inspect(InspectRequest.byIdentity(context.identity(), "corr_cluster", deadline())).code())
			.as("released at the job's end")
			.isEqualTo(ResultCode.LEASE_NOT_FOUND);
		AuditEvents audit = app.getBean(AuditEvents.class);
		await("acquire and release audited").atMost(Duration.ofSeconds(10))
			.until(() -> audit.has(AuditEventType.ACQUIRE, target) && audit.has(AuditEventType.RELEASE, target));
	}

	@Test
	void aGracefulFailoverOfTheProgramsShardCancelsTheHolderAndTheNextRunGetsAHigherToken() throws Exception {
		Runs jobs = app.getBean(Runs.class);
		String target = "failover-" + UUID.randomUUID().toString().substring(0, 8);
		awaitInSync(primary);
		CompletableFuture<JobRun> run = jobs.start(target);
		LeaseContext holder = jobs.awaitStarted(target);
		int replica = cluster.replicaOf(primary);
		assertThat(cluster.waitForReplicas(primary, 1, Duration.ofSeconds(5))).as("the replica has the lease")
			.isEqualTo(1);
		cluster.failover(replica, false);
		cluster.awaitPromotion(replica, Duration.ofSeconds(30));
		Events events = app.getBean(Events.class);
		await("the holder is cancelled after the promotion").atMost(Duration.ofSeconds(30))
			.until(() -> events.lost.stream().anyMatch((event) -> event.context().leaseId().equals(holder.leaseId())));
		JobRun cancelled = run.get(30, TimeUnit.SECONDS);
		assertThat(cancelled.interrupted()).as("the job was interrupted").isTrue();
		// right after the promotion the write may also find no usable route (backend unavailable): never accepted
		assertThat(cancelled.late().isAccepted()).as("its later checkpoint write: %s", cancelled.late()).isFalse();
		RedisCheckpointStore checkpoints = app.getBean(RedisCheckpointStore.class);
		FencedWriteResult stale = await("a stale write once the clients follow the promoted node")
			.atMost(Duration.ofSeconds(30))
			.until(() -> checkpoints.write(holder, CheckpointState.COMPLETED, "stale"),
					(result) -> result.outcome() != FenceOutcome.BACKEND_UNAVAILABLE);
		assertThat(stale.outcome()).as("the former holder's write: %s", stale).isEqualTo(FenceOutcome.LEASE_LOST);

		CompletableFuture<JobRun> next = jobs.start(target);
		LeaseContext successor = jobs.awaitStarted(target);
		assertThat(successor.fencingToken()).isGreaterThan(holder.fencingToken());
		jobs.finish(target);
		JobRun after = next.get(30, TimeUnit.SECONDS);
		assertThat(after.checkpoint().outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		assertThat(after.late().outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		primary = replica;
	}

	@Test
	void aKilledPrimaryOfTheProgramsShardCancelsTheHolderAndTheNextRunGetsAHigherToken() throws Exception {
		Runs jobs = app.getBean(Runs.class);
		String target = "killed-" + UUID.randomUUID().toString().substring(0, 8);
		awaitInSync(primary);
		CompletableFuture<JobRun> run = jobs.start(target);
		LeaseContext holder = jobs.awaitStarted(target);
		int replica = cluster.replicaOf(primary);
		assertThat(cluster.waitForReplicas(primary, 1, Duration.ofSeconds(5))).as("the replica has the lease")
			.isEqualTo(1);
		cluster.kill(primary);
		cluster.awaitPromotion(replica, Duration.ofSeconds(60));
		// a shard acknowledges nothing without a replica (issue 36): the killed node comes back empty as one
		cluster.restartAsReplica(primary);
		Events events = app.getBean(Events.class);
		await("the holder is cancelled after the kill").atMost(Duration.ofSeconds(30))
			.until(() -> events.lost.stream().anyMatch((event) -> event.context().leaseId().equals(holder.leaseId())));
		JobRun cancelled = run.get(30, TimeUnit.SECONDS);
		assertThat(cancelled.interrupted()).as("the job was interrupted").isTrue();
		assertThat(cancelled.late().isAccepted()).as("its later checkpoint write: %s", cancelled.late()).isFalse();
		RedisCheckpointStore checkpoints = app.getBean(RedisCheckpointStore.class);
		FencedWriteResult stale = await("a stale write once the clients follow the promoted node")
			.atMost(Duration.ofSeconds(30))
			.until(() -> checkpoints.write(holder, CheckpointState.COMPLETED, "stale"),
					(result) -> result.outcome() != FenceOutcome.BACKEND_UNAVAILABLE);
		assertThat(stale.outcome()).as("the former holder's write: %s", stale).isEqualTo(FenceOutcome.LEASE_LOST);

		CompletableFuture<JobRun> next = jobs.start(target);
		LeaseContext successor = jobs.awaitStarted(target);
		assertThat(successor.fencingToken()).isGreaterThan(holder.fencingToken());
		jobs.finish(target);
		JobRun after = next.get(30, TimeUnit.SECONDS);
		assertThat(after.checkpoint().outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		assertThat(after.document().outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		assertThat(after.publish().outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		assertThat(after.late().outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		primary = replica;
	}

	/** Waits until the shard of {@code primaryPort} has its replica in sync (a former primary rejoins as one). */
	private static void awaitInSync(int primaryPort) {
		cluster.awaitReplicaInSync(cluster.replicaOf(primaryPort), Duration.ofSeconds(60));
	}

	private static Instant deadline() {
		return Instant.now().plusSeconds(5);
	}

	private static String body(Message message) {
		return new String(message.getBody(), java.nio.charset.StandardCharsets.UTF_8);
	}

	record JobRun(LeaseContext context, FencedWriteResult checkpoint, FencedWriteResult document,
			FencedWriteResult publish, FencedWriteResult late, boolean interrupted) {
	}

	/** A user's application: the starter's auto-configuration, a CouchDB connector, a queue, a listener, a job. */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ClusterLeasedApp {

		@Bean
		CouchDbConnector couchDbConnector(org.springframework.core.env.Environment environment) {
			return new StdCouchDbConnector(environment.getRequiredProperty("cluster.it.database"), couch);
		}

		@Bean
		Queue workQueue(org.springframework.core.env.Environment environment) {
			return new Queue(environment.getRequiredProperty("cluster.it.queue"), false, false, true);
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
		ClusterJobs clusterJobs(RedisCheckpointStore checkpoints,
				@Qualifier("fencedCouchDbConnector") FencedCouchDbConnector documents,
				FencedRabbitTemplate rabbit, org.springframework.core.env.Environment environment, Runs runs) {
			return new ClusterJobs(checkpoints, documents, rabbit, environment.getRequiredProperty("cluster.it.queue"),
					runs);
		}

		@Bean
		Runs runs() {
			return new Runs();
		}

	}

	static class Consumed {

		final List<Message> messages = new CopyOnWriteArrayList<>();

		@RabbitListener(queues = "${cluster.it.queue}")
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
			return this.events.stream().anyMatch((event) -> event.eventType() == type && target.equals(event.targetId()));
		}

	}

	/** The test's side of the jobs: starts runs through the application's proxy and sees what they did. */
	static class Runs {

		final Map<String, LeaseContext> started = new ConcurrentHashMap<>();

		private final Map<String, CountDownLatch> finish = new ConcurrentHashMap<>();

		private final Map<String, CompletableFuture<JobRun>> runs = new ConcurrentHashMap<>();

		private final ExecutorService executor = Executors.newCachedThreadPool();

		CompletableFuture<JobRun> start(String target) {
			this.finish.put(target, new CountDownLatch(1));
			this.started.remove(target);
			ClusterJobs jobs = app.getBean(ClusterJobs.class);
			CompletableFuture<JobRun> run = CompletableFuture.supplyAsync(() -> jobs.work(target), this.executor);
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

		void finish(String target) {
			this.finish.get(target).countDown();
		}

		void releaseAll() {
			this.finish.values().forEach(CountDownLatch::countDown);
			this.executor.shutdownNow();
		}

	}

	static class ClusterJobs {

		private final RedisCheckpointStore checkpoints;

		private final FencedCouchDbConnector documents;

		private final FencedRabbitTemplate rabbit;

		private final String queue;

		private final Runs runs;

		ClusterJobs(RedisCheckpointStore checkpoints, FencedCouchDbConnector documents, FencedRabbitTemplate rabbit,
				String queue, Runs runs) {
			this.checkpoints = checkpoints;
			this.documents = documents;
			this.rabbit = rabbit;
			this.queue = queue;
			this.runs = runs;
		}

		@TargetLeased(target = "#target", actor = "usernamegen", ttl = "2s", maxLifetime = "2m")
		public JobRun work(String target) {
			LeaseContext context = LeaseContext.current().orElseThrow();
			FencedWriteResult checkpoint = this.checkpoints.writeCurrent(CheckpointState.IN_PROGRESS, "started");
			FencedWriteResult document = this.documents
				.tryCreate(new java.util.HashMap<>(Map.of("_id", target + "-" + context.fencingToken(), "value", target)));
			FencedWriteResult publish = this.rabbit.trySend("", this.queue,
					MessageBuilder.withBody(target.getBytes(java.nio.charset.StandardCharsets.UTF_8)).build());
			this.runs.started.put(target, context);
			boolean interrupted = false;
			try {
				this.runs.finish.get(target).await(60, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
			FencedWriteResult late = this.checkpoints.writeCurrent(CheckpointState.COMPLETED, "done");
			return new JobRun(context, checkpoint, document, publish, late, interrupted);
		}

	}

}
