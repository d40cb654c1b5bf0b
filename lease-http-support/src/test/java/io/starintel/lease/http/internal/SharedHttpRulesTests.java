package io.starintel.lease.http.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;

import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseConfigurationException;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.internal.PropertyProblems;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The rules both HTTP adapters share: strict JSON, deadlines, correlation ids and credential checks.
 */
class SharedHttpRulesTests {

	@Test
	void strictJsonRefusesDuplicatesUnknownFieldsAndWrongTypesNamingTheFieldNotTheValue() {
		for (String body : List.of("{\"a\":1,\"a\":2}", "{\"b\":1}", "[1]", "{", "{\"a\":1} x", "\"s\"")) {
			assertThatExceptionOfType(InvalidLeaseRequestException.class)
				.isThrownBy(() -> StrictJson.object(body.getBytes(), Set.of("a")))
				.withMessageNotContaining("x");
		}
		var node = StrictJson.object("{\"a\":\"secret-value\"}".getBytes(), Set.of("a"));
		assertThatExceptionOfType(InvalidLeaseRequestException.class)
			.isThrownBy(() -> StrictJson.integer(node, "a", true))
			.withMessageContaining("a")
			.withMessageNotContaining("secret-value");
		assertThat(StrictJson.integer(node, "missing", false)).isNull();
	}

	@Test
	void aBodyIsReadUpToItsBoundAndNeverPastIt() {
		assertThat(BoundedBody.read(request(new byte[256], true), 256)).hasSize(256);
		assertThat(BoundedBody.read(request(new byte[257], true), 256)).as("declared larger").isNull();
		assertThat(BoundedBody.read(request(new byte[257], false), 256)).as("sent larger, length undeclared").isNull();
		assertThat(BoundedBody.read(request(new byte[0], false), Integer.MAX_VALUE)).as("the widest bound").isEmpty();
		MockHttpServletRequest unreadable = new MockHttpServletRequest("POST", "/") {
			@Override
			public jakarta.servlet.ServletInputStream getInputStream() {
				throw new IllegalStateException("getReader() has already been called");
			}
		};
		assertThat(BoundedBody.read(unreadable, 256)).isNull();
	}

	private static MockHttpServletRequest request(byte[] body, boolean declared) {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/") {
			@Override
			public long getContentLengthLong() {
				return declared ? super.getContentLengthLong() : -1;
			}
		};
		request.setContent(body);
		return request;
	}

	@Test
	void deadlinesAreBoundedAndExtremeDatesAreMalformed() {
		Instant now = Instant.parse("2026-08-05T12:00:00Z");
		LeasePolicy policy = LeasePolicy.defaults();
		assertThat(RequestDeadline.parse(null, now, Duration.ofSeconds(5), policy, null)).isEqualTo(now.plusSeconds(5));
		assertThat(RequestDeadline.parse("2026-08-05T12:00:30Z", now, Duration.ofSeconds(5), policy, null))
			.isEqualTo(now.plusSeconds(30));
		for (String extreme : List.of("-292000000-01-01T00:00:00Z", "+1000000000-12-31T23:59:59Z",
				"1969-12-31T23:59:59Z", "2026-08-05T13:00:00Z", "not a date")) {
			assertThatExceptionOfType(InvalidLeaseRequestException.class)
				.isThrownBy(() -> RequestDeadline.parse(extreme, now, Duration.ofSeconds(5), policy, null))
				.withMessageContaining("deadline_at");
		}
		assertThatExceptionOfType(InvalidLeaseRequestException.class)
			.isThrownBy(() -> RequestDeadline.parse("2026-08-01T12:00:00Z", now, Duration.ofSeconds(5), policy,
					Duration.ofDays(1)));
		assertThat(RequestDeadline.parse("2026-08-01T12:00:00Z", now, Duration.ofSeconds(5), policy, null))
			.as("past but plausible: the caller answers deadline_exceeded")
			.isBefore(now);
	}

	@Test
	void correlationIdsAreEchoedOnlyWhenBoundedIdentifiers() {
		assertThat(CorrelationId.of("corr-1")).isEqualTo("corr-1");
		assertThat(CorrelationId.of(null)).startsWith("corr");
		assertThat(CorrelationId.of("a b")).isNotEqualTo("a b");
		assertThat(CorrelationId.of("x".repeat(500))).hasSizeLessThan(200);
	}

	@Test
	void credentialsNeedAnEncoderHashAndCanonicalRestrictions() {
		PropertyProblems valid = new PropertyProblems("p.");
		assertThat(CredentialCheck.secretHash(valid, "secret-hash", "{bcrypt}$2a$04$abc")).startsWith("{bcrypt}");
		assertThat(CredentialCheck.identifier(valid, "credential-id", "key_w")).isEqualTo("key_w");
		assertThat(CredentialCheck.tenant(valid, "tenant", "Tenant-A")).isEqualTo("tenant-a");
		assertThat(CredentialCheck.program(valid, "program", "program-a")).isEqualTo("program-a");
		assertThat(CredentialCheck.targets(valid, "targets", List.of("ns/t1"))).containsExactly("ns/t1");
		assertThat(CredentialCheck.actors(valid, "actors", List.of("usernamegen"))).containsExactly("usernamegen");
		assertThat(valid.isEmpty()).isTrue();
		for (String bad : new String[] { null, "hunter2", "{noop}hunter2", "{}hunter2" }) {
			PropertyProblems problems = new PropertyProblems("p.");
			assertThat(CredentialCheck.secretHash(problems, "secret-hash", bad)).isNull();
			assertThat(problems.problems()).singleElement().satisfies((problem) -> {
				assertThat(problem.where()).isEqualTo("p.secret-hash");
				assertThat(problem.what()).startsWith("must be a password-encoder hash").doesNotContain("hunter2");
			});
		}
		// every check records its own problem: none stops the others
		PropertyProblems problems = new PropertyProblems("p.");
		assertThat(CredentialCheck.identifier(problems, "principal", null)).isNull();
		assertThat(CredentialCheck.identifier(problems, "credential-id", "bad id!")).isNull();
		assertThat(CredentialCheck.tenant(problems, "tenant", "bad/tenant")).isNull();
		assertThat(CredentialCheck.program(problems, "program", null)).isNull();
		assertThat(CredentialCheck.targets(problems, "targets", List.of("ns/ok", "no-slash"))).containsExactly("ns/ok");
		assertThat(CredentialCheck.actors(problems, "actors", List.of("bad actor!"))).isEmpty();
		assertThat(problems.problems()).extracting(LeaseConfigurationException.Problem::where)
			.containsExactly("p.principal", "p.credential-id", "p.tenant", "p.program", "p.targets", "p.actors");
		assertThat(problems.problems()).extracting(LeaseConfigurationException.Problem::what)
			.noneMatch((what) -> what.contains("bad id!") || what.contains("bad/tenant") || what.contains("no-slash"));
	}

}
