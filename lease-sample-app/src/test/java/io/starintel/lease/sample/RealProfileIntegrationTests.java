package io.starintel.lease.sample;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import org.ektorp.CouchDbConnector;
import org.ektorp.http.StdHttpClient;
import org.ektorp.impl.StdCouchDbInstance;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Profile {@code real} against the local Redis, RabbitMQ and pouchdb-server (127.0.0.1; CI starts them): one leased
 * run writes a CouchDB result document stamped with {@code starintel_fence}, and its result message is consumed
 * and accepted by the listener guard. Database, queues and program are unique per run; the database and queues are
 * deleted afterwards.
 */
class RealProfileIntegrationTests {

	private static final String COUCHDB_URL = "http://127.0.0.1:5984";

	@Test
	@SuppressWarnings("unchecked")
	void leasedRunWritesFencedDocumentAndPublishesAcceptedMessage() throws Exception {
		String run = UUID.randomUUID().toString().substring(0, 8);
		String database = "usernamegen-it-" + run;
		String queue = "usernamegen.it." + run;
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleActorApplication.class)
			.profiles("real")
			.properties("sample.database=" + database, "sample.results-queue=" + queue,
					"starintel.lease.program=program-it-" + run, "spring.task.scheduling.shutdown.await-termination=false")
			.run()) {
			CouchDbConnector couchDb = context.getBean(CouchDbConnector.class);
			ResultListener listener = context.getBean(ResultListener.class);
			ResultSink results = context.getBean(ResultSink.class);
			assertThat(results).isInstanceOf(FencedResultSink.class);
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
				assertThat(results.committed()).isPositive();
				assertThat(listener.accepted()).isPositive();
				assertThat(couchDb.contains(FencedResultSink.documentId("target_01HZX3"))).isTrue();
			});
			Map<String, Object> document = couchDb.get(Map.class, FencedResultSink.documentId("target_01HZX3"));
			assertThat(document).containsEntry("target_id", "target_01HZX3").containsKey("_rev");
			Map<String, Object> fence = (Map<String, Object>) document.get("starintel_fence");
			assertThat(fence).containsKeys("lock_key_digest", "fencing_token", "lease_id", "accepted_at");
			assertThat(((Number) fence.get("fencing_token")).longValue()).isPositive();
		}
		finally {
			cleanUp(database, queue);
		}
	}

	private static void cleanUp(String database, String queue) throws Exception {
		StdHttpClient http = (StdHttpClient) new StdHttpClient.Builder().url(COUCHDB_URL).caching(false).build();
		try {
			StdCouchDbInstance instance = new StdCouchDbInstance(http);
			if (instance.checkIfDbExists(database)) {
				instance.deleteDatabase(database);
			}
		}
		finally {
			http.shutdown();
		}
		CachingConnectionFactory connectionFactory = new CachingConnectionFactory("127.0.0.1", 5672);
		try {
			RabbitAdmin admin = new RabbitAdmin(connectionFactory);
			admin.deleteQueue(queue);
			admin.deleteQueue(queue + ".dlq");
		}
		finally {
			connectionFactory.destroy();
		}
	}

}
