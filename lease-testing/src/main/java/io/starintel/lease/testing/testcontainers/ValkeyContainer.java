package io.starintel.lease.testing.testcontainers;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A Valkey server. With {@code @ServiceConnection} it supplies Spring Boot's Redis connection details (no
 * {@code name = "redis"} needed), so the lease store runs on it:
 *
 * <pre class="code">
 * &#64;Container
 * &#64;ServiceConnection
 * static ValkeyContainer valkey = new ValkeyContainer("valkey/valkey:8.0");
 * </pre>
 */
public class ValkeyContainer extends GenericContainer<ValkeyContainer> {

	/** The image used by {@link #ValkeyContainer()}. */
	public static final String DEFAULT_IMAGE = "valkey/valkey:8.0";

	/** Valkey's port inside the container. */
	public static final int PORT = 6379;

	/** A container of {@link #DEFAULT_IMAGE}. */
	public ValkeyContainer() {
		this(DEFAULT_IMAGE);
	}

	/** A container of the given Valkey image (e.g. a locally built {@code valkey:8.0.1-local}). */
	public ValkeyContainer(String image) {
		this(DockerImageName.parse(image));
	}

	public ValkeyContainer(DockerImageName image) {
		super(image);
		withExposedPorts(PORT);
	}

	/** The host port Valkey is reachable on. */
	public int getPort() {
		return getMappedPort(PORT);
	}

	/** {@code redis://host:port}. */
	public String getRedisUrl() {
		return "redis://" + getHost() + ":" + getPort();
	}

}
