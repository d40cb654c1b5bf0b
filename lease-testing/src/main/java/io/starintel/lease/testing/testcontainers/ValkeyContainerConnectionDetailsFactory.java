package io.starintel.lease.testing.testcontainers;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.testcontainers.containers.Container;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;

/**
 * Spring Boot's Redis connection details from a {@code @ServiceConnection} {@link ValkeyContainer}, or a generic
 * container of a {@code valkey} / {@code valkey/valkey} image. A container whose connection name is {@code redis}
 * is left to Boot's own Redis factory (both would otherwise answer for it).
 */
class ValkeyContainerConnectionDetailsFactory
		extends ContainerConnectionDetailsFactory<Container<?>, DataRedisConnectionDetails> {

	private static final List<String> NAMES = List.of("valkey", "valkey/valkey", "bitnami/valkey");

	ValkeyContainerConnectionDetailsFactory() {
		super(NAMES);
	}

	@Override
	protected boolean sourceAccepts(ContainerConnectionSource<Container<?>> source, Class<?> requiredContainerType,
			Class<?> requiredConnectionDetailsType) {
		if (source.accepts("redis", requiredContainerType, requiredConnectionDetailsType)) {
			return false;
		}
		return super.sourceAccepts(source, requiredContainerType, requiredConnectionDetailsType)
				|| source.accepts(ANY_CONNECTION_NAME, ValkeyContainer.class, requiredConnectionDetailsType);
	}

	@Override
	protected DataRedisConnectionDetails getContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
		return new ValkeyConnectionDetails(source);
	}

	static final class ValkeyConnectionDetails extends ContainerConnectionDetails<Container<?>>
			implements DataRedisConnectionDetails {

		ValkeyConnectionDetails(ContainerConnectionSource<Container<?>> source) {
			super(source);
		}

		@Override
		public @Nullable SslBundle getSslBundle() {
			return super.getSslBundle();
		}

		@Override
		public Standalone getStandalone() {
			return Standalone.of(getContainer().getHost(), getContainer().getMappedPort(ValkeyContainer.PORT));
		}

	}

}
