package io.starintel.lease.autoconfigure.couchdb;

import java.net.MalformedURLException;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.ektorp.CouchDbConnector;
import org.ektorp.CouchDbInstance;
import org.ektorp.DbAccessException;
import org.ektorp.http.HttpClient;
import org.ektorp.http.StdHttpClient;
import org.ektorp.impl.StdCouchDbInstance;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;

import io.starintel.lease.autoconfigure.couchdb.internal.CouchDbStartupFailures;
import io.starintel.lease.autoconfigure.couchdb.internal.PropertiesCouchDbConnectionDetails;
import io.starintel.lease.core.LeaseConfigurationException;

/**
 * Auto-configures Ektorp's {@link CouchDbInstance} when {@code starintel.lease.couchdb.url} is set or a
 * {@link CouchDbConnectionDetails} bean exists, and its {@link CouchDbConnector} of
 * {@code starintel.lease.couchdb.database}; the fenced connector ({@code FenceCouchDbAutoConfiguration}) wraps that
 * connector. Each bean backs off for a user bean of its type.
 */
@AutoConfiguration
@ConditionalOnClass({ CouchDbInstance.class, StdHttpClient.class })
@Conditional(LeaseCouchDbAutoConfiguration.CouchDbConfigured.class)
@EnableConfigurationProperties(LeaseCouchDbProperties.class)
public final class LeaseCouchDbAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(CouchDbConnectionDetails.class)
	PropertiesCouchDbConnectionDetails propertiesCouchDbConnectionDetails(LeaseCouchDbProperties properties) {
		return new PropertiesCouchDbConnectionDetails(properties);
	}

	@Bean(destroyMethod = "shutdown")
	@ConditionalOnMissingBean(HttpClient.class)
	HttpClient couchDbHttpClient(CouchDbConnectionDetails details, LeaseCouchDbProperties properties,
			ObjectProvider<CouchDbHttpClientBuilderCustomizer> customizers) {
		return httpClient(details.url(), details.username(), details.password(), properties,
				customizers.orderedStream().toList());
	}

	/**
	 * An Ektorp client of the server at {@code url} as {@code username} (none: anonymous), with the connection
	 * settings of {@code properties} and the customizers applied: the application's client, and the forged-fence
	 * recovery's (its own user, {@code starintel.lease.fence.couchdb.recovery.*}).
	 */
	public static HttpClient httpClient(String url, @Nullable String username, @Nullable String password,
			LeaseCouchDbProperties properties, List<CouchDbHttpClientBuilderCustomizer> customizers) {
		StdHttpClient.Builder builder;
		try {
			builder = new StdHttpClient.Builder().url(url);
		}
		catch (MalformedURLException ex) {
			throw new LeaseConfigurationException(
					List.of(new LeaseConfigurationException.Problem("starintel.lease.couchdb.url",
							"is not a URL (" + ex.getMessage() + ")")),
					"Set starintel.lease.couchdb.url to the server's base URL, e.g. http://localhost:5984.");
		}
		if (username != null) {
			builder.username(username);
			if (password != null) {
				builder.password(password);
			}
		}
		// fenced reads must see the server's current document: no client-side response cache
		builder.caching(false)
			.connectionTimeout((int) properties.connectTimeout().toMillis())
			.socketTimeout((int) properties.socketTimeout().toMillis())
			.maxConnections(properties.maxConnections());
		customizers.forEach((customizer) -> customizer.customize(builder));
		return builder.build();
	}

	@Bean
	@ConditionalOnMissingBean
	CouchDbInstance couchDbInstance(HttpClient httpClient) {
		return new StdCouchDbInstance(httpClient);
	}

	/**
	 * The connector of {@code starintel.lease.couchdb.database}, creating the database when missing with
	 * {@code create-database=true}; a server that cannot be reached or refuses fails start-up with a report naming the
	 * property to fix ({@link CouchDbStartupFailures}).
	 */
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(prefix = "starintel.lease.couchdb", name = "database")
	CouchDbConnector couchDbConnector(CouchDbInstance instance, LeaseCouchDbProperties properties,
			ObjectProvider<CouchDbConnectionDetails> details) {
		try {
			return instance.createConnector(properties.database(), properties.createDatabase());
		}
		catch (DbAccessException ex) {
			throw CouchDbStartupFailures.translate(ex, CouchDbStartupFailures.Task.CREATE_DATABASE,
					properties.database(), properties, details.getIfUnique());
		}
	}

	/** {@code starintel.lease.couchdb.url} is set, or a {@link CouchDbConnectionDetails} bean exists. */
	static final class CouchDbConfigured extends SpringBootCondition implements ConfigurationCondition {

		@Override
		public ConfigurationPhase getConfigurationPhase() {
			return ConfigurationPhase.REGISTER_BEAN;
		}

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			ConditionMessage.Builder message = ConditionMessage.forCondition("CouchDB connection");
			if (context.getEnvironment().containsProperty("starintel.lease.couchdb.url")) {
				return ConditionOutcome.match(message.found("property").items("starintel.lease.couchdb.url"));
			}
			ConfigurableListableBeanFactory beans = context.getBeanFactory();
			if (beans != null && beans.getBeanNamesForType(CouchDbConnectionDetails.class, true, false).length > 0) {
				return ConditionOutcome.match(message.found("bean").items(CouchDbConnectionDetails.class.getName()));
			}
			return ConditionOutcome.noMatch(message.didNotFind("property starintel.lease.couchdb.url or bean")
				.items(CouchDbConnectionDetails.class.getName()));
		}

	}

}
