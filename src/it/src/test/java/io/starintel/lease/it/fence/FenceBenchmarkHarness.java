package io.starintel.lease.it.fence;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.starintel.lease.test.ServiceEnvironment;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.fence.amqp.FencedRabbitTemplate;
import io.starintel.lease.fence.couchdb.internal.FenceDesignDocument;
import io.starintel.lease.fence.couchdb.FencedCouchDbConnector;
import io.starintel.lease.context.LeaseContext;
import org.ektorp.CouchDbConnector;
import org.ektorp.CouchDbInstance;
import org.ektorp.http.StdHttpClient;
import org.ektorp.impl.StdCouchDbConnector;
import org.ektorp.impl.StdCouchDbInstance;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * Measurement harness, not a timed test: runs only with {@code -Dfence.bench=true} and prints the cost of one
 * authorization and fenced versus unfenced publish and CouchDB write throughput, measured in the same run.
 * Results go to docs/benchmarks-fence.md by hand.
 */
@EnabledIfSystemProperty(named = "fence.bench", matches = "true")
class FenceBenchmarkHarness {

	static final int WARMUP = 200;

	@Test
	void measure() throws Exception {
		try (FenceFixture fixture = new FenceFixture()) {
			LeaseContext context = fixture.acquire(fixture.identity("bench"), "bench", 600_000);
			authorization(fixture.guard, context);
			publish(fixture.guard, context);
			couchdb(fixture.guard, context);
		}
	}

	static void authorization(FenceGuard guard, LeaseContext context) {
		int n = 3000;
		for (int i = 0; i < WARMUP; i++) {
			guard.authorize(context);
		}
		long[] nanos = new long[n];
		long start = System.nanoTime();
		for (int i = 0; i < n; i++) {
			long t = System.nanoTime();
			if (!guard.authorize(context).isAuthorized()) {
				throw new IllegalStateException("not authorized");
			}
			nanos[i] = System.nanoTime() - t;
		}
		report("authorize (1 thread)", n, System.nanoTime() - start, nanos);
	}

	static void publish(FenceGuard guard, LeaseContext context) throws Exception {
		CachingConnectionFactory cf = new CachingConnectionFactory(ServiceEnvironment.env("STARINTEL_RABBIT_HOST", "127.0.0.1"));
		cf.setUsername("guest");
		cf.setPassword("guest");
		cf.setPublisherConfirmType(CachingConnectionFactory.ConfirmType.CORRELATED);
		cf.setPublisherReturns(true);
		RabbitAdmin admin = new RabbitAdmin(cf);
		String queue = "fence-bench-" + UUID.randomUUID().toString().substring(0, 8);
		admin.declareQueue(new Queue(queue, false, false, true));
		try {
			RabbitTemplate plain = new RabbitTemplate(cf);
			plain.setMandatory(true);
			FencedRabbitTemplate fenced = new FencedRabbitTemplate(cf, guard);
			int n = 2000;
			long[] nanos = new long[n];
			for (int round = 0; round < 2; round++) {
				long start = System.nanoTime();
				for (int i = 0; i < n; i++) {
					long t = System.nanoTime();
					CorrelationData cd = new CorrelationData(Integer.toString(i));
					plain.send("", queue, message(), cd);
					if (!cd.getFuture().get(5, TimeUnit.SECONDS).ack()) {
						throw new IllegalStateException("nack");
					}
					nanos[i] = System.nanoTime() - t;
				}
				if (round == 1) {
					report("publish unfenced, mandatory + confirm wait", n, System.nanoTime() - start, nanos);
				}
				start = System.nanoTime();
				try (LeaseContext.Scope scope = LeaseContext.bind(context)) {
					for (int i = 0; i < n; i++) {
						long t = System.nanoTime();
						if (!fenced.trySend("", queue, message()).isAccepted()) {
							throw new IllegalStateException("refused");
						}
						nanos[i] = System.nanoTime() - t;
					}
				}
				if (round == 1) {
					report("publish fenced (authorize + headers + confirm wait)", n, System.nanoTime() - start, nanos);
				}
				admin.purgeQueue(queue, false);
			}
		}
		finally {
			admin.deleteQueue(queue);
			cf.destroy();
		}
	}

	static void couchdb(FenceGuard guard, LeaseContext context) throws Exception {
		org.ektorp.http.HttpClient http = new StdHttpClient.Builder()
			.url(ServiceEnvironment.env("STARINTEL_COUCHDB_URL", "http://127.0.0.1:5984"))
			.caching(false)
			.build();
		CouchDbInstance instance = new StdCouchDbInstance(http);
		String database = "fence-bench-" + UUID.randomUUID().toString().substring(0, 8);
		instance.createDatabase(database);
		try {
			CouchDbConnector raw = new StdCouchDbConnector(database, instance);
			FenceDesignDocument.install(raw);
			FencedCouchDbConnector fenced = new FencedCouchDbConnector(raw, guard);
			int n = 500;
			long[] nanos = new long[n];
			for (int round = 0; round < 2; round++) {
				Map<String, Object> plainDoc = doc("plain-" + round);
				raw.create(plainDoc);
				long start = System.nanoTime();
				for (int i = 0; i < n; i++) {
					long t = System.nanoTime();
					plainDoc.put("n", i);
					raw.update(plainDoc);
					nanos[i] = System.nanoTime() - t;
				}
				if (round == 1) {
					report("couchdb update unfenced (validate_doc_update installed)", n, System.nanoTime() - start,
							nanos);
				}
				Map<String, Object> fencedDoc = doc("fenced-" + round);
				try (LeaseContext.Scope scope = LeaseContext.bind(context)) {
					fenced.create(fencedDoc);
					start = System.nanoTime();
					for (int i = 0; i < n; i++) {
						long t = System.nanoTime();
						fencedDoc.put("n", i);
						if (!fenced.tryUpdate(fencedDoc).isAccepted()) {
							throw new IllegalStateException("refused");
						}
						nanos[i] = System.nanoTime() - t;
					}
				}
				if (round == 1) {
					report("couchdb update fenced (authorize + stamp + _rev)", n, System.nanoTime() - start, nanos);
				}
			}
		}
		finally {
			instance.deleteDatabase(database);
			http.shutdown();
		}
	}

	static Map<String, Object> doc(String id) {
		Map<String, Object> doc = new LinkedHashMap<>();
		doc.put("_id", id);
		doc.put("payload", new HashMap<>(Map.of("result", "ok")));
		return doc;
	}

	static Message message() {
		return new Message("result".getBytes(StandardCharsets.UTF_8), new MessageProperties());
	}

	static void report(String name, int n, long totalNanos, long[] nanos) {
		long[] sorted = nanos.clone();
		Arrays.sort(sorted);
		System.out.printf("BENCH %-58s n=%5d  %8.0f ops/s  p50=%7.1f us  p99=%8.1f us%n", name, n,
				n / (totalNanos / 1e9), sorted[n / 2] / 1e3, sorted[(int) (n * 0.99)] / 1e3);
	}

}
