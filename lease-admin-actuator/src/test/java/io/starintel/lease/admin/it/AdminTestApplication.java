package io.starintel.lease.admin.it;

import io.starintel.lease.test.RedisContainerConnection;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/**
 * A small application for the admin endpoint's HTTP tests; each test class imports the store it runs against. Redis
 * (the audit streams, and the Redis store where a class imports it) is a container through {@code @ServiceConnection}
 * when the run uses containers ({@link RedisContainerConnection}), else {@code STARINTEL_REDIS_URL}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(RedisContainerConnection.class)
public class AdminTestApplication {

}
