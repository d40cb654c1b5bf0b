package io.starintel.lease.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A leased actor in the spirit of the contract's example: {@code usernamegen} working on
 * {@code starintel-target} targets, each under its own fenced lease.
 */
@SpringBootApplication
@EnableScheduling
public class SampleActorApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleActorApplication.class, args);
	}

}
