package io.starintel.lease.core.internal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import io.starintel.lease.core.Operation;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The request digest (contract: a retry with the same idempotency key and digest replays, another digest is
 * {@code idempotency_conflict}): digests are stored with each idempotency result, so a new build must compute the
 * very digests an older one stored. {@link RequestDigest#of} and the field-by-field {@link RequestDigest#start} both
 * against digests computed by the build before {@code start} existed, and against the encoding written out here
 * (the operation's wire name, then each field as its UTF-8 length in decimal, ':' and its UTF-8 bytes; SHA-256,
 * unpadded base64url).
 */
class RequestDigestTests {

	@Test
	void digestsOfTheEarlierBuildAreComputedAgain() {
		// printed by RequestDigest.of of commit 2796554 (before RequestDigest.start)
		assertThat(RequestDigest.of(Operation.ACQUIRE, "starintel:target-lease:v1:abc", "prn_1", null, "key_1",
				"instance-é", 30000L, -5L, "execution_1", null, "trace_1", "{\"k\":\"v\"}"))
			.isEqualTo("lvNxuYmK5iUHUZL39yU3xF3nSBLLFCmSGYWl_4eujbk");
		assertThat(RequestDigest.start(Operation.ACQUIRE)
			.field(io.starintel.lease.core.LockIdentity.KEY_PREFIX, "abc")
			.field("prn_1")
			.field((String) null)
			.field("key_1")
			.field("instance-é")
			.field(30000L)
			.field(-5L)
			.field("execution_1")
			.field((String) null)
			.field("trace_1")
			.field("{\"k\":\"v\"}")
			.digest()).isEqualTo("lvNxuYmK5iUHUZL39yU3xF3nSBLLFCmSGYWl_4eujbk");
		assertThat(RequestDigest.start(Operation.RENEW)
			.field("starintel:target-lease:v1:", "abc")
			.field("lease_1")
			.field("prn_1")
			.field("instance-1")
			.field(1839644382328832L)
			.field("ttl_ms")
			.field(Long.valueOf(45000L))
			.digest()).isEqualTo("05h2HzdKWc17KHekQ3yEkvV7Kd4rfEKsgQ9jqLpaA_U");
		assertThat(RequestDigest.start(Operation.RELEASE)
			.field("starintel:target-lease:v1:abc")
			.field("lease_1")
			.field("prn_1")
			.field("instance-1")
			.field(Long.MIN_VALUE)
			.digest()).isEqualTo("1FeBGH99OwjU_8apl-GSVXvfyRLilCklyapwxPjdwmE");
	}

	@Property(tries = 1000)
	void fieldByFieldEqualsTheArrayFormAndTheEncoding(@ForAll("fields") List<Object> fields,
			@ForAll("operations") Operation operation) throws Exception {
		RequestDigest.Fields digest = RequestDigest.start(operation);
		for (Object field : fields) {
			if (field instanceof Long number) {
				digest.field(number.longValue());
			}
			else if (field instanceof String[] split) {
				digest.field(split[0], split[1]);
			}
			else {
				digest.field((String) field);
			}
		}
		String byField = digest.digest();
		List<Object> flat = new ArrayList<>();
		for (Object field : fields) {
			flat.add((field instanceof String[] split) ? split[0] + split[1] : field);
		}
		assertThat(byField).isEqualTo(RequestDigest.of(operation, flat.toArray()))
			.isEqualTo(reference(operation, flat));
	}

	@Provide
	Arbitrary<List<Object>> fields() {
		Arbitrary<String> text = Arbitraries.strings().withCharRange(' ', '~').withChars('é', '€', '\u001f').ofMaxLength(40);
		Arbitrary<Object> one = Arbitraries.oneOf(text.map((s) -> (Object) s), Arbitraries.just(null),
				Arbitraries.longs().map((n) -> (Object) n),
				Arbitraries.of(0L, -1L, 9L, 10L, -10L, Long.MAX_VALUE, Long.MIN_VALUE).map((n) -> (Object) n),
				text.tuple2().map((t) -> (Object) new String[] { t.get1(), t.get2() }));
		return one.list().ofMaxSize(14);
	}

	@Provide
	Arbitrary<Operation> operations() {
		return Arbitraries.of(Operation.class);
	}

	/** The encoding of the contract's digest, written out without the product's buffer. */
	private static String reference(Operation operation, List<Object> fields) throws Exception {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		List<String> texts = new ArrayList<>();
		texts.add(operation.wireName());
		for (Object field : fields) {
			texts.add(String.valueOf(field));
		}
		for (String text : texts) {
			byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
			out.write(Integer.toString(utf8.length).getBytes(StandardCharsets.US_ASCII));
			out.write(':');
			out.write(utf8);
		}
		byte[] sha = MessageDigest.getInstance("SHA-256").digest(out.toByteArray());
		return Base64.getUrlEncoder().withoutPadding().encodeToString(sha);
	}

}
