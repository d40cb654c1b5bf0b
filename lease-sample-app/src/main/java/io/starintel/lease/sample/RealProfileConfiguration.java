package io.starintel.lease.sample;

import java.net.MalformedURLException;

import org.ektorp.CouchDbConnector;
import org.ektorp.http.StdHttpClient;
import org.ektorp.impl.StdCouchDbConnector;
import org.ektorp.impl.StdCouchDbInstance;

import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

import io.starintel.lease.fence.amqp.FencedRabbitTemplate;
import io.starintel.lease.fence.checkpoint.CheckpointStore;
import io.starintel.lease.fence.couchdb.FencedCouchDbConnector;

/**
 * Profile {@code real}: the CouchDB connector (database created if missing; the fence auto-configuration wraps it
 * in the fenced connector and installs the design document at start-up), the results queue with its dead-letter
 * queue, and the fenced {@link ResultSink}. The default profile defines none of these, so it needs no servers.
 */
@Configuration(proxyBeanMethods = false)
@Profile("real")
class RealProfileConfiguration {

	@Bean(destroyMethod = "shutdown")
	StdHttpClient couchDbHttpClient(SampleProperties properties) throws MalformedURLException {
		return (StdHttpClient) new StdHttpClient.Builder().url(properties.couchdbUrl()).caching(false).build();
	}

	@Bean
	CouchDbConnector couchDbConnector(StdHttpClient couchDbHttpClient, SampleProperties properties) {
		StdCouchDbConnector connector = new StdCouchDbConnector(properties.database(),
				new StdCouchDbInstance(couchDbHttpClient));
		connector.createDatabaseIfNotExists();
		return connector;
	}

	@Bean
	Queue resultsQueue(SampleProperties properties) {
		return QueueBuilder.durable(properties.resultsQueue())
			.deadLetterExchange("")
			.deadLetterRoutingKey(properties.deadLetterQueue())
			.build();
	}

	@Bean
	Queue resultsDeadLetterQueue(SampleProperties properties) {
		return QueueBuilder.durable(properties.deadLetterQueue()).build();
	}

	@Bean
	FencedResultSink fencedResultSink(CheckpointStore checkpoints,
			@Qualifier("fencedCouchDbConnector") FencedCouchDbConnector couchDb, FencedRabbitTemplate rabbit,
			SampleProperties properties) {
		return new FencedResultSink(checkpoints, couchDb, rabbit, properties.resultsQueue());
	}

}
