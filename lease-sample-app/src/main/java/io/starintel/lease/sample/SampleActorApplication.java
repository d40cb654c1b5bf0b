package io.starintel.lease.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Profile;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A leased actor in the spirit of the contract's example: {@code usernamegen} working on
 * {@code starintel-target} targets, each under its own fenced lease. Without a profile it runs on the in-memory
 * store and only logs its results; profile {@code real} ({@link RealProfileConfiguration}) commits them to Redis,
 * CouchDB and RabbitMQ through the fenced decorators.
 */
@SpringBootApplication
@EnableScheduling
@EnableConfigurationProperties(SampleProperties.class)
public class SampleActorApplication {

	@Bean
	@Profile("!real")
	LoggingResultSink loggingResultSink() {
		return new LoggingResultSink();
	}

	public static void main(String[] args) {
		SpringApplication.run(SampleActorApplication.class, args);
	}

}
