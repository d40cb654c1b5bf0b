package io.starintel.lease.autoconfigure.fence;

import java.time.Clock;

import org.ektorp.CouchDbConnector;
import org.ektorp.DbAccessException;
import org.ektorp.http.HttpClient;
import org.ektorp.impl.StdCouchDbConnector;
import org.ektorp.impl.StdCouchDbInstance;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.audit.internal.AsyncAuditPipeline;
import io.starintel.lease.autoconfigure.couchdb.CouchDbConnectionDetails;
import io.starintel.lease.autoconfigure.couchdb.CouchDbHttpClientBuilderCustomizer;
import io.starintel.lease.autoconfigure.couchdb.internal.CouchDbStartupFailures;
import io.starintel.lease.autoconfigure.couchdb.LeaseCouchDbAutoConfiguration;
import io.starintel.lease.autoconfigure.couchdb.LeaseCouchDbProperties;
import io.starintel.lease.fence.couchdb.FencedDocumentRecovery;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.fence.couchdb.DocumentMarkStore;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.fence.couchdb.internal.FenceDesignDocument;
import io.starintel.lease.fence.couchdb.FencedCouchDbReader;
import io.starintel.lease.fence.couchdb.FencedCouchDbConnector;

/**
 * Auto-configures the {@link FencedCouchDbConnector} around the application's single {@link CouchDbConnector} (yours,
 * or the one {@link LeaseCouchDbAutoConfiguration} opens from {@code starintel.lease.couchdb.*}) and
 * installs {@link FenceDesignDocument} at start-up. The decorator bean is not a default autowiring candidate, so
 * existing injection points of {@code CouchDbConnector} keep the undecorated connector; inject it with
 * {@code @Qualifier("fencedCouchDbConnector")}. With the in-memory lease store the connector keeps no durable
 * document marks (and there is no {@link FencedCouchDbReader}). Contract: CouchDB target acceptance, target state mutations and
 * result documents are fenced.
 */
@AutoConfiguration(after = { FenceAutoConfiguration.class, LeaseCouchDbAutoConfiguration.class },
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass(CouchDbConnector.class)
@ConditionalOnBean(FenceGuard.class)
@ConditionalOnSingleCandidate(CouchDbConnector.class)
public final class FenceCouchDbAutoConfiguration {

	@Bean(defaultCandidate = false)
	@ConditionalOnMissingBean(FencedCouchDbConnector.class)
	FencedCouchDbConnector fencedCouchDbConnector(CouchDbConnector connector, FenceGuard guard,
			ObjectProvider<DocumentMarkStore> marks, ObjectProvider<FenceRejectionMetrics> metrics,
			ObjectProvider<AsyncAuditPipeline> auditPipeline, ObjectProvider<LeaseStore> stores) {
		// an in-memory lease store keeps no marks in Redis (whatever the bean's declared type)
		DocumentMarkStore documentMarks = RedisFenceCalls.inMemory(stores) ? null : marks.getIfAvailable();
		FencedCouchDbConnector fenced = new FencedCouchDbConnector(connector,
				FenceAutoConfiguration.guard(guard, metrics, FenceRejectionMetrics.COUCHDB), documentMarks);
		// CouchDB's server-side refusals (the design document's 403) are audited through the non-blocking pipeline
		AsyncAuditPipeline pipeline = auditPipeline.getIfAvailable();
		if (pipeline != null) {
			fenced.documents().setAuditSink(pipeline::submit);
		}
		return fenced;
	}

	/**
	 * Durable per-document marks and the fenced reader, on the lease store's Redis; none with the in-memory lease
	 * store ({@code starintel.lease.store=memory}, or the test kit's in-memory mode): the marks and the reader's rule
	 * (which fences the lease store issued) live beside the Redis store's leases, and an in-memory store's leases are
	 * not there, so its fenced writes keep no mark and their outcome never depends on a Redis.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(StringRedisTemplate.class)
	@ConditionalOnBean(StringRedisTemplate.class)
	@ConditionalOnMissingBean(InMemoryLeaseStore.class)
	static class MarksConfiguration {

		@Bean
		@ConditionalOnMissingBean
		DocumentMarkStore documentMarkStore(StringRedisTemplate redis, ObjectProvider<LeaseStore> stores) {
			RedisLeaseStore leases = RedisFenceCalls.redisStore(stores);
			return (leases != null) ? new DocumentMarkStore(leases.fenceCalls(), DocumentMarkStore.DEFAULT_TIMEOUT)
					: new DocumentMarkStore(redis);
		}

		@Bean
		@ConditionalOnMissingBean
		FencedCouchDbReader fencedCouchDbReader(CouchDbConnector connector, DocumentMarkStore marks) {
			return new FencedCouchDbReader(connector, marks);
		}

		/**
		 * The client of the forged-fence recovery: its own CouchDB user (with the role
		 * {@code starintel_fence_recovery}), never an injection candidate for the application.
		 */
		@Bean(destroyMethod = "shutdown", defaultCandidate = false)
		@ConditionalOnProperty(prefix = "starintel.lease.fence.couchdb.recovery", name = "username")
		@ConditionalOnBean(CouchDbConnectionDetails.class)
		HttpClient fenceRecoveryCouchDbHttpClient(CouchDbConnectionDetails details, FenceProperties properties,
				LeaseCouchDbProperties couchDb, ObjectProvider<CouchDbHttpClientBuilderCustomizer> customizers) {
			FenceProperties.Recovery recovery = properties.couchdb().recovery();
			return LeaseCouchDbAutoConfiguration.httpClient(details.url(), recovery.username(), recovery.password(),
					couchDb, customizers.orderedStream().toList());
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnProperty(prefix = "starintel.lease.fence.couchdb.recovery", name = "username")
		@ConditionalOnBean(CouchDbConnectionDetails.class)
		FencedDocumentRecovery fencedDocumentRecovery(
				@Qualifier("fenceRecoveryCouchDbHttpClient") HttpClient recoveryClient, CouchDbConnector connector,
				DocumentMarkStore marks) {
			CouchDbConnector asRecoveryUser = new StdCouchDbConnector(connector.getDatabaseName(),
					new StdCouchDbInstance(recoveryClient));
			return new FencedDocumentRecovery(asRecoveryUser, marks, Clock.systemUTC());
		}

	}

	/**
	 * Installs the design document once every singleton exists; a database that does not exist, a server that cannot
	 * be reached or refuses the call fails start-up with a report naming the property to fix
	 * ({@link CouchDbStartupFailures}).
	 */
	@Bean
	@ConditionalOnProperty(prefix = "starintel.lease.fence.couchdb", name = "install-design-document",
			matchIfMissing = true)
	SmartInitializingSingleton fenceDesignDocumentInstaller(CouchDbConnector connector,
			ObjectProvider<LeaseCouchDbProperties> properties, ObjectProvider<CouchDbConnectionDetails> details) {
		return () -> {
			try {
				FenceDesignDocument.install(connector);
			}
			catch (DbAccessException ex) {
				throw CouchDbStartupFailures.translate(ex, CouchDbStartupFailures.Task.INSTALL_DESIGN_DOCUMENT,
						connector.getDatabaseName(), properties.getIfUnique(), details.getIfUnique());
			}
		};
	}

}
