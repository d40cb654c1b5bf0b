package io.starintel.lease.autoconfigure.fence;

import java.net.ConnectException;
import java.util.Map;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.ektorp.CouchDbConnector;
import org.ektorp.DbAccessException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.fence.couchdb.DocumentMarkStore;
import io.starintel.lease.fence.couchdb.internal.FenceDesignDocument;
import io.starintel.lease.fence.couchdb.FencedCouchDbReader;
import org.springframework.data.redis.core.StringRedisTemplate;
import io.starintel.lease.fence.couchdb.FencedCouchDbConnector;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import io.starintel.lease.autoconfigure.couchdb.LeaseCouchDbAutoConfiguration;
import io.starintel.lease.fence.couchdb.FencedDocumentRecovery;
import org.ektorp.http.HttpClient;

import static io.starintel.lease.autoconfigure.StartupReports.report;
import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;

@ExtendWith(OutputCaptureExtension.class)
class FenceCouchDbAutoConfigurationTests {

	private final CouchDbConnector connector = mock(CouchDbConnector.class);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(FenceAutoConfiguration.class, FenceCouchDbAutoConfiguration.class))
		.withBean(LeaseStore.class, InMemoryLeaseStore::new);

	@Test
	void whenSingleConnectorThenFencedDecoratorAndDesignDocumentInstalled() {
		this.runner.withBean(CouchDbConnector.class, () -> this.connector).run((context) -> {
			FencedCouchDbConnector fenced = context.getBean("fencedCouchDbConnector", FencedCouchDbConnector.class);
			assertThat(fenced.delegate()).isSameAs(this.connector);
			// plain CouchDbConnector injection points keep the undecorated connector
			assertThat(context.getBean(CouchDbConnector.class)).isSameAs(this.connector);
			verify(this.connector).find(ObjectNode.class, FenceDesignDocument.ID);
			verify(this.connector).create(argThat((Object doc) -> doc instanceof Map<?, ?> map
					&& FenceDesignDocument.ID.equals(map.get("_id"))));
		});
	}

	@Test
	void whenACouchDbWriteIsRefusedThenItIsCountedAtTheCouchDbEnforcementPoint() {
		io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
				new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
		this.runner.withBean(CouchDbConnector.class, () -> this.connector)
			.withBean(io.micrometer.core.instrument.MeterRegistry.class, () -> registry)
			.withPropertyValues("starintel.lease.fence.couchdb.install-design-document=false")
			.run((context) -> {
				FencedCouchDbConnector fenced = context.getBean("fencedCouchDbConnector", FencedCouchDbConnector.class);
				assertThat(fenced.tryCreate("doc-1", new java.util.HashMap<>(Map.of("a", 1))).outcome())
					.isEqualTo(io.starintel.lease.fence.FenceOutcome.NO_LEASE_CONTEXT);
				assertThat(registry.get("starintel.lease.fence.rejections")
					.tag("enforcement_point", "couchdb")
					.tag("reason", "no_lease_context")
					.counter()
					.count()).isEqualTo(1.0);
			});
	}

	@Test
	void whenInstallDisabledThenDesignDocumentNotTouched() {
		this.runner.withBean(CouchDbConnector.class, () -> this.connector)
			.withPropertyValues("starintel.lease.fence.couchdb.install-design-document=false")
			.run((context) -> {
				assertThat(context).hasBean("fencedCouchDbConnector");
				verify(this.connector, never()).find(any(), eq(FenceDesignDocument.ID));
			});
	}

	@Test
	void whenStringRedisTemplateThenMarksAndFencedReader() {
		this.runner.withBean(CouchDbConnector.class, () -> this.connector)
			.withBean(StringRedisTemplate.class, () -> mock(StringRedisTemplate.class))
			.withPropertyValues("starintel.lease.fence.couchdb.install-design-document=false")
			.run((context) -> assertThat(context).hasSingleBean(DocumentMarkStore.class)
				.hasSingleBean(FencedCouchDbReader.class)
				.hasBean("fencedCouchDbConnector"));
	}

	@Test
	void whenRecoveryUserAndConnectionDetailsThenForgedFenceRecoveryOnItsOwnClient() {
		this.runner.withConfiguration(AutoConfigurations.of(LeaseCouchDbAutoConfiguration.class))
			.withBean(StringRedisTemplate.class, () -> mock(StringRedisTemplate.class))
			.withPropertyValues("starintel.lease.couchdb.url=http://127.0.0.1:1", "starintel.lease.couchdb.database=db",
					"starintel.lease.fence.couchdb.install-design-document=false",
					"starintel.lease.fence.couchdb.recovery.username=fence-recovery",
					"starintel.lease.fence.couchdb.recovery.password=secret")
			.run((context) -> {
				assertThat(context).hasSingleBean(FencedDocumentRecovery.class).hasBean("fenceRecoveryCouchDbHttpClient");
				// the application's own client stays the one injection candidate
				assertThat(context.getBean(HttpClient.class)).isSameAs(context.getBean("couchDbHttpClient"));
				assertThat(context.getBean(FencedDocumentRecovery.class).databaseName()).isEqualTo("db");
			});
	}

	@Test
	void whenNoRecoveryUserThenNoRecovery() {
		this.runner.withConfiguration(AutoConfigurations.of(LeaseCouchDbAutoConfiguration.class))
			.withBean(StringRedisTemplate.class, () -> mock(StringRedisTemplate.class))
			.withPropertyValues("starintel.lease.couchdb.url=http://127.0.0.1:1", "starintel.lease.couchdb.database=db",
					"starintel.lease.fence.couchdb.install-design-document=false")
			.run((context) -> assertThat(context).doesNotHaveBean(FencedDocumentRecovery.class)
				.doesNotHaveBean("fenceRecoveryCouchDbHttpClient"));
	}

	@Test
	void whenRecoveryUserButNoConnectionDetailsThenNoRecovery() {
		this.runner.withBean(CouchDbConnector.class, () -> this.connector)
			.withBean(StringRedisTemplate.class, () -> mock(StringRedisTemplate.class))
			.withPropertyValues("starintel.lease.fence.couchdb.install-design-document=false",
					"starintel.lease.fence.couchdb.recovery.username=fence-recovery")
			.run((context) -> assertThat(context).doesNotHaveBean(FencedDocumentRecovery.class));
	}

	@Test
	void whenNoStringRedisTemplateThenNoMarksNorReader() {
		this.runner.withBean(CouchDbConnector.class, () -> this.connector)
			.withPropertyValues("starintel.lease.fence.couchdb.install-design-document=false")
			.run((context) -> assertThat(context).doesNotHaveBean(DocumentMarkStore.class)
				.doesNotHaveBean(FencedCouchDbReader.class)
				.hasBean("fencedCouchDbConnector"));
	}

	@Test
	void whenTheUsersConnectorCannotReachTheServerThenStartUpNamesTheConnector() {
		given(this.connector.getDatabaseName()).willReturn("results");
		given(this.connector.find(ObjectNode.class, FenceDesignDocument.ID))
			.willThrow(new DbAccessException(new ConnectException("Connection refused")));
		this.runner.withBean(CouchDbConnector.class, () -> this.connector).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(report(context.getStartupFailure()))
				.contains("CouchDbConnector could not be reached (ConnectException: Connection refused): the fence "
						+ "design document _design/starintel_fence could not be installed in the database results")
				.contains("starintel.lease.fence.couchdb.install-design-document=false");
		});
	}

	@Test
	void whenTheUserMayNotWriteDesignDocumentsThenStartUpSaysWhatTheInstallNeeds() {
		given(this.connector.getDatabaseName()).willReturn("results");
		given(this.connector.find(ObjectNode.class, FenceDesignDocument.ID)).willThrow(new DbAccessException(
				"403:Forbidden\nURI: /results/_design/starintel_fence\nResponse Body: \n{\"error\":\"forbidden\"}"));
		this.runner.withBean(CouchDbConnector.class, () -> this.connector).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(report(context.getStartupFailure()))
				.contains("may not write design documents in the database results (403 forbidden)")
				.contains("Make the user an admin of the database results");
		});
	}

	@Test
	void whenTheServerAnswersAnErrorThenStartUpNamesTheStatus() {
		given(this.connector.getDatabaseName()).willReturn("results");
		given(this.connector.find(ObjectNode.class, FenceDesignDocument.ID)).willThrow(new DbAccessException(
				"500:Internal Server Error\nURI: /results/_design/starintel_fence\nResponse Body: \n{}"));
		this.runner.withBean(CouchDbConnector.class, () -> this.connector).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(report(context.getStartupFailure()))
				.contains("CouchDbConnector answered HTTP 500: the fence design document");
		});
	}

	@Test
	void whenNoConnectorThenNoDecorator() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean("fencedCouchDbConnector"));
	}

	@Test
	void whenSeveralConnectorsAndNonePrimaryThenNoDecoratorAndStartUpNamesThem(CapturedOutput output) {
		this.runner.withBean("resultsConnector", CouchDbConnector.class, () -> this.connector)
			.withBean("targetsConnector", CouchDbConnector.class, () -> mock(CouchDbConnector.class))
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean("fencedCouchDbConnector");
				assertThat(output).contains("2 CouchDbConnector beans (resultsConnector, targetsConnector) and none "
						+ "primary: no fenced connector is auto-configured");
			});
	}

	@Test
	void whenSeveralConnectorsAndOnePrimaryThenThePrimaryIsFencedAndNothingIsReported(CapturedOutput output) {
		this.runner.withBean("resultsConnector", CouchDbConnector.class, () -> this.connector, (bd) -> bd.setPrimary(true))
			.withBean("targetsConnector", CouchDbConnector.class, () -> mock(CouchDbConnector.class))
			.withPropertyValues("starintel.lease.fence.couchdb.install-design-document=false")
			.run((context) -> {
				assertThat(context.getBean("fencedCouchDbConnector", FencedCouchDbConnector.class).delegate())
					.isSameAs(this.connector);
				assertThat(output).doesNotContain("CouchDbConnector beans");
			});
	}

	@Test
	void whenNoFenceGuardThenNoDecorator() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(FenceAutoConfiguration.class, FenceCouchDbAutoConfiguration.class))
			.withBean(CouchDbConnector.class, () -> this.connector)
			.run((context) -> assertThat(context).doesNotHaveBean("fencedCouchDbConnector"));
	}

	@Test
	void whenEktorpIsMissingThenNothingIsConfigured() {
		this.runner.withClassLoader(new FilteredClassLoader(CouchDbConnector.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("fencedCouchDbConnector"));
	}

	@Test
	void whenUserDecoratorThenAutoConfigurationBacksOff() {
		this.runner.withBean(CouchDbConnector.class, () -> this.connector)
			.withBean("myFenced", FencedCouchDbConnector.class,
					() -> new FencedCouchDbConnector(this.connector, new FenceGuard(new InMemoryLeaseStore())))
			.withPropertyValues("starintel.lease.fence.couchdb.install-design-document=false")
			.run((context) -> assertThat(context).doesNotHaveBean("fencedCouchDbConnector"));
	}

}
