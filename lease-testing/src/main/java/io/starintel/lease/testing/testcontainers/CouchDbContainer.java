package io.starintel.lease.testing.testcontainers;

import java.time.Duration;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * An Apache CouchDB server with an administrator ({@code COUCHDB_USER}/{@code COUCHDB_PASSWORD}, default
 * {@code admin}/{@code admin}), ready once {@code /_up} answers 200. With {@code @ServiceConnection} it supplies
 * {@link io.starintel.lease.testing.couchdb.CouchDbConnectionDetails}, readable as
 * {@code starintel.lease.test.couchdb.url}; without it, register the URL yourself:
 *
 * <pre class="code">
 * &#64;DynamicPropertySource
 * static void couchDb(DynamicPropertyRegistry registry) {
 *     registry.add("app.couchdb-url", couchDb::getUrlWithCredentials);
 * }
 * </pre>
 */
public class CouchDbContainer extends GenericContainer<CouchDbContainer> {

	/** The image used by {@link #CouchDbContainer()}. */
	public static final String DEFAULT_IMAGE = "couchdb:3.4";

	/** CouchDB's port inside the container. */
	public static final int PORT = 5984;

	private String username = "admin";

	private String password = "admin";

	/** A container of {@link #DEFAULT_IMAGE}. */
	public CouchDbContainer() {
		this(DEFAULT_IMAGE);
	}

	/** A container of the given CouchDB image (e.g. a locally built {@code couchdb:3.4.3-local}). */
	public CouchDbContainer(String image) {
		this(DockerImageName.parse(image));
	}

	public CouchDbContainer(DockerImageName image) {
		super(image);
		withExposedPorts(PORT);
		waitingFor(Wait.forHttp("/_up").forPort(PORT).forStatusCode(200).withStartupTimeout(Duration.ofMinutes(2)));
	}

	/** The administrator the official image creates at first start (an image with its own {@code local.ini} admin must match). */
	public CouchDbContainer withAdmin(String username, String password) {
		this.username = username;
		this.password = password;
		return self();
	}

	@Override
	protected void configure() {
		withEnv("COUCHDB_USER", this.username);
		withEnv("COUCHDB_PASSWORD", this.password);
	}

	public String getUsername() {
		return this.username;
	}

	public String getPassword() {
		return this.password;
	}

	/** {@code http://host:port}. */
	public String getUrl() {
		return "http://" + getHost() + ":" + getMappedPort(PORT);
	}

	/**
	 * {@code http://user:password@host:port}, the credentials as they are (Ektorp's
	 * {@code StdHttpClient.Builder.url(String)} does not decode them): right only for credentials that need no URL
	 * escaping; with others (e.g. {@code s3cret@home/1}) give Ektorp {@link #getUrl()}, {@link #getUsername()} and
	 * {@link #getPassword()}.
	 */
	public String getUrlWithCredentials() {
		return "http://" + this.username + ":" + this.password + "@" + getHost() + ":" + getMappedPort(PORT);
	}

}
