package io.starintel.lease.testing.internal;

import java.net.MalformedURLException;

import org.ektorp.http.StdHttpClient;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;

import io.starintel.lease.testing.couchdb.CouchDbConnectionDetails;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code starintel.lease.test.couchdb.*} gives an application that builds its Ektorp client from them: the right
 * credentials for any password (Ektorp's {@code Builder.url} does not decode the user info).
 */
class CouchDbPropertySourceTests {

	@Test
	void credentialsThatNeedNoEscapingAreInTheUrlAndEktorpReadsThem() throws MalformedURLException {
		CouchDbPropertySource properties = properties("admin", "s3cret");
		assertThat(properties.getProperty("starintel.lease.test.couchdb.url"))
			.isEqualTo("http://admin:s3cret@127.0.0.1:5984");
		EktorpBuilder builder = new EktorpBuilder();
		builder.url((String) properties.getProperty("starintel.lease.test.couchdb.url"));
		assertThat(builder.username()).isEqualTo("admin");
		assertThat(builder.password()).isEqualTo("s3cret");
	}

	@Test
	void credentialsThatNeedEscapingAreNotInTheUrlAndTheUsernameAndPasswordCarryThem() throws MalformedURLException {
		CouchDbPropertySource properties = properties("probe", "s3cret@home/1 x+y");
		String url = (String) properties.getProperty("starintel.lease.test.couchdb.url");
		assertThat(url).isEqualTo("http://127.0.0.1:5984")
			.isEqualTo(properties.getProperty("starintel.lease.test.couchdb.base-url"));
		EktorpBuilder builder = new EktorpBuilder();
		builder.url(url)
			.username((String) properties.getProperty("starintel.lease.test.couchdb.username"))
			.password((String) properties.getProperty("starintel.lease.test.couchdb.password"));
		assertThat(builder.host()).isEqualTo("127.0.0.1");
		assertThat(builder.username()).isEqualTo("probe");
		assertThat(builder.password()).isEqualTo("s3cret@home/1 x+y");
	}

	@Test
	void withoutCredentialsTheUrlIsTheBaseUrl() {
		assertThat(properties(null, null).getProperty("starintel.lease.test.couchdb.url"))
			.isEqualTo("http://127.0.0.1:5984");
	}

	private static CouchDbPropertySource properties(@Nullable String username, @Nullable String password) {
		DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
		beans.registerSingleton("couchDbConnectionDetails", new CouchDbConnectionDetails() {

			@Override
			public String url() {
				return "http://127.0.0.1:5984";
			}

			@Override
			public @Nullable String username() {
				return username;
			}

			@Override
			public @Nullable String password() {
				return password;
			}

		});
		return new CouchDbPropertySource(beans);
	}

	/** Ektorp's builder, read back (it keeps what it was given in protected fields). */
	static final class EktorpBuilder extends StdHttpClient.Builder {

		@Nullable String username() {
			return this.username;
		}

		@Nullable String password() {
			return this.password;
		}

		@Nullable String host() {
			return this.host;
		}

	}

}
