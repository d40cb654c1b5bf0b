package io.starintel.lease.autoconfigure.couchdb;

import java.net.URI;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link CouchDbConnectionDetails#urlWithCredentials()} percent-encodes the user info (RFC 3986), never form-encodes. */
class CouchDbConnectionDetailsTests {

	@Test
	void credentialsThatNeedNoEscapingAreVerbatim() {
		assertThat(details("admin", "s3cret-1.2_x~").urlWithCredentials())
			.isEqualTo("http://admin:s3cret-1.2_x~@127.0.0.1:5984");
	}

	@Test
	void everyOtherCharacterIsPercentEncodedAndDecodesBackToThePassword() {
		String password = "pass word+1@home/1:?#%é";
		String url = details("a b", password).urlWithCredentials();
		assertThat(url).isEqualTo("http://a%20b:pass%20word%2B1%40home%2F1%3A%3F%23%25%C3%A9@127.0.0.1:5984");
		// a client that decodes the user info as RFC 3986 says gets the credentials back
		assertThat(URI.create(url).getUserInfo()).isEqualTo("a b:" + password);
		assertThat(URI.create(url).getHost()).isEqualTo("127.0.0.1");
	}

	@Test
	void withoutUserOrPasswordOnlyWhatIsThere() {
		assertThat(details(null, null).urlWithCredentials()).isEqualTo("http://127.0.0.1:5984");
		assertThat(details("admin", null).urlWithCredentials()).isEqualTo("http://admin@127.0.0.1:5984");
	}

	private static CouchDbConnectionDetails details(@Nullable String username, @Nullable String password) {
		return new CouchDbConnectionDetails() {

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

		};
	}

}
