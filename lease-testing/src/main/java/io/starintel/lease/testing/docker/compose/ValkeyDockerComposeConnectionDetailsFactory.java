package io.starintel.lease.testing.docker.compose;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionDetailsFactory;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;
import org.springframework.boot.ssl.SslBundle;

/**
 * Spring Boot's Redis connection details from a Docker Compose service of a {@code valkey} or {@code valkey/valkey}
 * image (a service labelled {@code org.springframework.boot.service-connection: redis} is Boot's own Redis
 * factory's).
 */
class ValkeyDockerComposeConnectionDetailsFactory
		extends DockerComposeConnectionDetailsFactory<DataRedisConnectionDetails> {

	private static final String[] NAMES = { "valkey", "valkey/valkey", "bitnami/valkey" };

	private static final int PORT = 6379;

	ValkeyDockerComposeConnectionDetailsFactory() {
		super(NAMES, "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails");
	}

	@Override
	protected DataRedisConnectionDetails getDockerComposeConnectionDetails(DockerComposeConnectionSource source) {
		return new ComposeValkeyConnectionDetails(source.getRunningService());
	}

	static final class ComposeValkeyConnectionDetails extends DockerComposeConnectionDetails
			implements DataRedisConnectionDetails {

		private final Standalone standalone;

		private final @Nullable SslBundle sslBundle;

		ComposeValkeyConnectionDetails(RunningService service) {
			super(service);
			this.standalone = Standalone.of(service.host(), service.ports().get(PORT));
			this.sslBundle = getSslBundle(service);
		}

		@Override
		public @Nullable SslBundle getSslBundle() {
			return this.sslBundle;
		}

		@Override
		public Standalone getStandalone() {
			return this.standalone;
		}

	}

}
