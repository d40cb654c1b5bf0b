package com.example.consumer;

import java.net.MalformedURLException;

import org.ektorp.CouchDbConnector;
import org.ektorp.http.StdHttpClient;
import org.ektorp.impl.StdCouchDbConnector;
import org.ektorp.impl.StdCouchDbInstance;
import org.springframework.amqp.core.Queue;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * A user's application: Ektorp's CouchDB connector, a results queue and a control API for the test driver. It
 * declares no lease bean: the store, the facade, the fence guard, the fenced RabbitTemplate and CouchDB connector and
 * the admin endpoint all come from the starter's and the admin module's auto-configurations.
 */
@SpringBootApplication
public class ConsumerApplication {

	public static void main(String[] args) {
		SpringApplication.run(ConsumerApplication.class, args);
	}

	@Bean(destroyMethod = "shutdown")
	StdHttpClient couchDbHttpClient(@Value("${consumer.couchdb-url}") String url) throws MalformedURLException {
		return (StdHttpClient) new StdHttpClient.Builder().url(url).caching(false).build();
	}

	@Bean
	CouchDbConnector couchDbConnector(StdHttpClient client, @Value("${consumer.database}") String database) {
		StdCouchDbConnector connector = new StdCouchDbConnector(database, new StdCouchDbInstance(client));
		connector.createDatabaseIfNotExists();
		return connector;
	}

	@Bean
	Queue resultsQueue(@Value("${consumer.queue}") String queue) {
		return new Queue(queue, false, false, true);
	}

	/** The driver's control API is open (a test fixture, not part of what a user would ship). */
	@Bean
	@Order(1)
	SecurityFilterChain demoSecurity(HttpSecurity http) throws Exception {
		http.securityMatcher("/demo/**")
			.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll())
			.csrf((csrf) -> csrf.disable());
		return http.build();
	}

}
