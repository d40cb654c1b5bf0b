package io.starintel.lease.worker;

import java.time.Duration;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.DefaultValue;

import io.starintel.lease.http.Admission;
import io.starintel.lease.http.Credential;

/**
 * Settings of the worker HTTP API ({@code starintel.lease.worker-http.*}).
 *
 * @param enabled whether the worker endpoints under {@code /lease/v1} are registered
 * @param maxBodyBytes largest accepted request body; larger bodies are 400
 * @param defaultDeadline deadline of a request that gives no {@code deadline_at}
 * @param defaultMaximumLifetime maximum lifetime of a lease whose acquire gives no {@code maximum_lifetime_ms}
 * @param admission per-tenant admission control (the shape the admin endpoint shares)
 * @param credentials worker credentials (HTTP Basic: credential id and secret): kind worker (the default),
 * capabilities targets:lease (the default) or targets:read, exactly one program
 */
@ConfigurationProperties("starintel.lease.worker-http")
public record WorkerHttpProperties(@DefaultValue("false") boolean enabled, @DefaultValue("8192") int maxBodyBytes,
		@DefaultValue("5s") Duration defaultDeadline, @DefaultValue("1h") Duration defaultMaximumLifetime,
		@DefaultValue @NestedConfigurationProperty Admission admission, @DefaultValue List<Credential> credentials) {

}
