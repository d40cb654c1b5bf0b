package io.starintel.lease.autoconfigure.couchdb;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.UUID;

import org.ektorp.CouchDbConnector;
import org.ektorp.CouchDbInstance;
import org.ektorp.http.HttpClient;
import org.ektorp.http.StdHttpClient;
import org.ektorp.impl.StdCouchDbInstance;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.autoconfigure.fence.FenceAutoConfiguration;
import io.starintel.lease.autoconfigure.fence.FenceCouchDbAutoConfiguration;
import io.starintel.lease.fence.couchdb.FencedCouchDbConnector;

import static io.starintel.lease.autoconfigure.StartupReports.report;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.mockito.Mockito.mock;

/**
 * The CouchDB connection from {@code starintel.lease.couchdb.*} (or a {@link CouchDbConnectionDetails} bean),
 * assembled with the fence auto-configurations against the real Apache CouchDB (127.0.0.1:5986 admin/admin, or
 * {@code -Dstarintel.couchdb.url}).
 */
@ExtendWith(OutputCaptureExtension.class)
class LeaseCouchDbAutoConfigurationTests {

	private static final String URL = System.getProperty("starintel.couchdb.url", "http://127.0.0.1:5986");

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class,
				FenceAutoConfiguration.class, LeaseCouchDbAutoConfiguration.class,
				FenceCouchDbAutoConfiguration.class))
		.withPropertyValues("starintel.lease.store=memory", "starintel.lease.tenant=tenant-main",
				"starintel.lease.program=program-a", "starintel.lease.owner.service-principal=prn_test");

	@Test
	void whenUrlAndDatabaseThenConnectorOnTheServerWrappedByTheFencedConnector() {
		String database = "starintel-lease-ac-" + UUID.randomUUID().toString().substring(0, 8);
		this.runner
			.withPropertyValues("starintel.lease.couchdb.url=" + URL, "starintel.lease.couchdb.username=admin",
					"starintel.lease.couchdb.password=admin", "starintel.lease.couchdb.database=" + database,
					"starintel.lease.couchdb.create-database=true")
			.run((context) -> {
				CouchDbInstance instance = context.getBean(CouchDbInstance.class);
				try {
					assertThat(instance.getAllDatabases()).contains(database);
					CouchDbConnector connector = context.getBean(CouchDbConnector.class);
					assertThat(connector.getDatabaseName()).isEqualTo(database);
					FencedCouchDbConnector fenced = context.getBean("fencedCouchDbConnector",
							FencedCouchDbConnector.class);
					assertThat(fenced.delegate()).isSameAs(connector);
					// the fence design document was installed through the auto-configured connection
					assertThat(connector.contains("_design/starintel_fence")).isTrue();
				}
				finally {
					instance.deleteDatabase(database);
				}
			});
	}

	@Test
	void whenUrlWithoutDatabaseThenInstanceOnly() {
		this.runner.withPropertyValues("starintel.lease.couchdb.url=" + URL)
			.run((context) -> assertThat(context).hasSingleBean(CouchDbInstance.class)
				.hasSingleBean(CouchDbConnectionDetails.class)
				.doesNotHaveBean(CouchDbConnector.class)
				.doesNotHaveBean(FencedCouchDbConnector.class));
	}

	@Test
	void whenNeitherUrlNorConnectionDetailsThenNothing() {
		this.runner.withPropertyValues("starintel.lease.couchdb.database=db")
			.run((context) -> assertThat(context).doesNotHaveBean(CouchDbInstance.class)
				.doesNotHaveBean(CouchDbConnectionDetails.class)
				.doesNotHaveBean(HttpClient.class));
	}

	@Test
	void whenConnectionDetailsBeanThenItReplacesTheProperties() {
		String database = "starintel-lease-ac-" + UUID.randomUUID().toString().substring(0, 8);
		this.runner.withBean(CouchDbConnectionDetails.class, () -> new CouchDbConnectionDetails() {

			@Override
			public String url() {
				return URL;
			}

			@Override
			public @Nullable String username() {
				return "admin";
			}

			@Override
			public @Nullable String password() {
				return "admin";
			}

		})
			.withPropertyValues("starintel.lease.couchdb.url=http://127.0.0.1:1",
					"starintel.lease.couchdb.database=" + database, "starintel.lease.couchdb.create-database=true")
			.run((context) -> {
				CouchDbInstance instance = context.getBean(CouchDbInstance.class);
				try {
					assertThat(instance.getAllDatabases()).contains(database);
				}
				finally {
					instance.deleteDatabase(database);
				}
			});
	}

	@Test
	void whenUserCouchDbInstanceThenAutoConfigurationBacksOff() {
		CouchDbInstance mine = mock(CouchDbInstance.class);
		this.runner.withPropertyValues("starintel.lease.couchdb.url=" + URL)
			.withBean(CouchDbInstance.class, () -> mine)
			.run((context) -> assertThat(context.getBean(CouchDbInstance.class)).isSameAs(mine));
	}

	@Test
	void whenCustomizerThenItSeesTheBuilder() {
		boolean[] customized = new boolean[1];
		this.runner.withPropertyValues("starintel.lease.couchdb.url=" + URL)
			.withBean(CouchDbHttpClientBuilderCustomizer.class, () -> (builder) -> customized[0] = true)
			.run((context) -> {
				assertThat(context).hasSingleBean(HttpClient.class);
				assertThat(customized[0]).isTrue();
			});
	}

	@Test
	void whenEktorpIsAbsentThenNothing() {
		this.runner.withPropertyValues("starintel.lease.couchdb.url=" + URL)
			.withClassLoader(new FilteredClassLoader("org.ektorp"))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LeaseCouchDbAutoConfiguration.class));
	}

	@Test
	void whenTheDatabaseDoesNotExistThenStartUpNamesTheDatabaseAndCreateDatabaseProperties() {
		String database = "starintel-lease-missing-" + UUID.randomUUID().toString().substring(0, 8);
		this.runner
			.withPropertyValues("starintel.lease.couchdb.url=" + URL, "starintel.lease.couchdb.username=admin",
					"starintel.lease.couchdb.password=admin", "starintel.lease.couchdb.database=" + database)
			.run((context) -> {
				assertThat(context).hasFailed();
				String report = report(context.getStartupFailure());
				assertThat(report).contains("starintel.lease.couchdb.database (" + database
						+ ") does not exist on the CouchDB server " + URL)
					.contains("the fence design document _design/starintel_fence could not be installed")
					.contains("starintel.lease.couchdb.create-database=true")
					.doesNotContain("admin@")
					.doesNotContain("password=");
				// nothing was created on the way
				assertThat(new StdCouchDbInstance(new StdHttpClient.Builder().url(URL)
					.username("admin")
					.password("admin")
					.build()).checkIfDbExists(database)).isFalse();
			});
	}

	@Test
	void whenStartedAsAnApplicationThenOneReportNamesTheMissingDatabase(CapturedOutput output) {
		String database = "starintel-lease-missing-" + UUID.randomUUID().toString().substring(0, 8);
		SpringApplication application = new SpringApplication(App.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run("--spring.main.banner-mode=off",
				"--starintel.lease.store=memory", "--starintel.lease.tenant=tenant-main",
				"--starintel.lease.program=program-a", "--starintel.lease.owner.service-principal=prn_test",
				"--starintel.lease.couchdb.url=" + URL, "--starintel.lease.couchdb.username=admin",
				"--starintel.lease.couchdb.password=admin", "--starintel.lease.couchdb.database=" + database));
		String out = output.toString();
		assertThat(out.split("APPLICATION FAILED TO START", -1)).hasSize(2);
		assertThat(out).contains("starintel.lease.couchdb.database (" + database + ") does not exist")
			.contains("starintel.lease.couchdb.create-database=true")
			.doesNotContain("admin:admin")
			.doesNotContain("\tat ");
	}

	@Test
	void whenTheServerIsDownThenStartUpNamesTheUrlWithoutCredentials() throws IOException {
		int port = unusedPort();
		this.runner
			.withPropertyValues("starintel.lease.couchdb.url=http://fence-user:s3cret-in-url@127.0.0.1:" + port,
					"starintel.lease.couchdb.username=fence-user", "starintel.lease.couchdb.password=s3cret-property",
					"starintel.lease.couchdb.database=db")
			.run((context) -> {
				assertThat(context).hasFailed();
				String report = report(context.getStartupFailure());
				assertThat(report)
					.contains("starintel.lease.couchdb.url (http://127.0.0.1:" + port + ") could not be reached")
					.contains("Connection refused")
					.contains("the fence design document _design/starintel_fence could not be installed in the "
							+ "database db")
					.contains("Start the CouchDB server")
					.contains("starintel.lease.fence.couchdb.install-design-document=false")
					.doesNotContain("s3cret")
					.doesNotContain("fence-user@");
			});
	}

	@Test
	void whenTheServerIsDownAndTheDatabaseIsToBeCreatedThenStartUpNamesTheUrl() throws IOException {
		int port = unusedPort();
		this.runner
			.withPropertyValues("starintel.lease.couchdb.url=http://127.0.0.1:" + port,
					"starintel.lease.couchdb.username=admin", "starintel.lease.couchdb.password=s3cret-property",
					"starintel.lease.couchdb.database=db", "starintel.lease.couchdb.create-database=true")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(report(context.getStartupFailure()))
					.contains("starintel.lease.couchdb.url (http://127.0.0.1:" + port + ") could not be reached")
					.contains("the database db could not be checked or created (create-database=true)")
					.doesNotContain("s3cret");
			});
	}

	@Test
	void whenThePasswordIsWrongThenStartUpNamesTheUserProperty() {
		this.runner
			.withPropertyValues("starintel.lease.couchdb.url=" + URL, "starintel.lease.couchdb.username=admin",
					"starintel.lease.couchdb.password=s3cret-wrong", "starintel.lease.couchdb.database=db")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(report(context.getStartupFailure()))
					.contains("starintel.lease.couchdb.username was refused with its password (401 unauthorized)")
					.contains("Set starintel.lease.couchdb.username and starintel.lease.couchdb.password")
					.doesNotContain("s3cret");
			});
	}

	/** A local port nothing listens on (bound once, then released). */
	private static int unusedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	@Test
	void whenUrlIsMalformedThenStartUpNamesTheProperty() {
		this.runner.withPropertyValues("starintel.lease.couchdb.url=nonsense")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("starintel.lease.couchdb.url"));
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class,
			FenceAutoConfiguration.class, LeaseCouchDbAutoConfiguration.class, FenceCouchDbAutoConfiguration.class })
	static class App {

	}

}
