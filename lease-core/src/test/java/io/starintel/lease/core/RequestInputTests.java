package io.starintel.lease.core;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Bad input to the request builders and value types is the typed {@link InvalidLeaseRequestException} naming the
 * field, never a raw {@code NullPointerException}, {@code ArithmeticException}, serializer error or
 * {@code StackOverflowError}, and never a value a store would silently change.
 */
class RequestInputTests {

	private static final LockIdentity IDENTITY = LockIdentity.of("tenant-a", "program-a", "starintel-target", "t1",
			"usernamegen", "default", null);

	private static final LeaseOwner OWNER = new LeaseOwner("prn_a", "client-1", "key-1", "instance-1");

	private static final LeaseHandle HANDLE = new LeaseHandle(IDENTITY, "lease_1", "prn_a", "instance-1", 7L);

	@Test
	void aMissingOrUnrepresentableDurationIsInvalid() {
		Duration huge = Duration.ofSeconds(Long.MAX_VALUE);
		assertInvalid("ttl_ms", () -> AcquireRequest.builder(IDENTITY, OWNER).ttl(null));
		assertInvalid("ttl_ms", () -> AcquireRequest.builder(IDENTITY, OWNER).ttl(huge));
		assertInvalid("maximum_lifetime_ms", () -> AcquireRequest.builder(IDENTITY, OWNER).maximumLifetime(null));
		assertInvalid("maximum_lifetime_ms", () -> AcquireRequest.builder(IDENTITY, OWNER).maximumLifetime(huge));
	}

	@Test
	void anAttachedValueWithAnUnpairedSurrogateIsInvalidNotStoredAsSomethingElse() {
		Instant deadline = Instant.now().plusSeconds(5);
		for (String value : List.of("\uDC00", "A\uD800B", "end\uD800")) {
			assertInvalid("attached_value", () -> new AttachPutRequest(HANDLE, "k", value, "request_1", deadline));
		}
		assertThat(new AttachPutRequest(HANDLE, "k", "emoji \uD83D\uDE00 ok", "request_1", deadline).value())
			.isEqualTo("emoji \uD83D\uDE00 ok");
	}

	@Test
	void metadataThatIsNoJsonTreeIsInvalid() {
		Map<String, Object> self = new HashMap<>();
		self.put("a", self);
		assertInvalid("metadata", () -> LeaseMetadata.of(self));
		Map<String, Object> nullKey = new HashMap<>();
		nullKey.put(null, "v");
		assertInvalid("metadata", () -> LeaseMetadata.of(nullKey));
		Map<Object, Object> numberKey = new HashMap<>();
		numberKey.put(1, "v");
		@SuppressWarnings("unchecked")
		Map<String, ?> cast = (Map<String, ?>) (Map<?, ?>) numberKey;
		assertInvalid("metadata", () -> LeaseMetadata.of(cast));
		assertThat(LeaseMetadata.of(Map.of("a", Map.of("b", List.of(1, 2)))).json()).isEqualTo("{\"a\":{\"b\":[1,2]}}");
		// JSON has no infinity: a number beyond a double is refused, not stored as the text "Infinity"
		assertInvalid("metadata", () -> LeaseMetadata.parse("{\"a\":1e1000000}"));
		assertInvalid("metadata", () -> LeaseMetadata.of(Map.of("a", Double.NaN)));
		assertThat(LeaseMetadata.parse("{\"a\":1.5e300}").json()).isEqualTo("{\"a\":1.5E300}");
	}

	/**
	 * Free text where control characters are refused (an administrator's reason, metadata strings) also refuses an
	 * unpaired surrogate (no UTF-8 form: the audit stream would keep {@code ?}) and format, line and paragraph
	 * separator characters (shown raw or reordering text in the console): PlainText, the one home of the rule.
	 */
	@Test
	void freeTextRefusesUnpairedSurrogatesAndFormatAndSeparatorCharacters() {
		for (String bad : List.of("a\ud800b", "a\udc00", "\ud800", "a\u202eb", "a\u2028b", "a\u2029b", "a\u200bb",
				"a\ufeffb", "a\u0007b", "a\nb")) {
			assertInvalid("reason", () -> AdminRequest.requireValidReason(bad));
			assertInvalid("metadata", () -> LeaseMetadata.of(Map.of("note", bad)));
		}
		// lone surrogates as JSON escapes, as a worker's body sends them
		assertInvalid("metadata", () -> LeaseMetadata.parse("{\"note\":\"\\ud800\"}"));
		assertInvalid("metadata", () -> LeaseMetadata.parse("{\"note\":\"x\\u202ey\"}"));
		// a surrogate pair (an emoji), accented and non-Latin text are plain text
		AdminRequest.requireValidReason("incident \ud83d\ude00 caf\u00e9 \u4e8b\u4ef6");
		assertThat(LeaseMetadata.of(Map.of("note", "\ud83d\ude00 caf\u00e9")).json())
			.isEqualTo("{\"note\":\"\ud83d\ude00 caf\u00e9\"}");
		// the two joiners ordinary text needs: an emoji ZWJ sequence (family) and Persian with a non-joiner
		AdminRequest.requireValidReason("incident \ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67");
		AdminRequest.requireValidReason("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645");
		assertThat(LeaseMetadata.of(Map.of("note", "a\u200db\u200cc")).json()).isEqualTo("{\"note\":\"a\u200db\u200cc\"}");
	}

	private static void assertInvalid(String field, Runnable call) {
		assertThatExceptionOfType(InvalidLeaseRequestException.class).isThrownBy(call::run)
			.satisfies((ex) -> assertThat(ex.field()).isEqualTo(field));
	}

}
