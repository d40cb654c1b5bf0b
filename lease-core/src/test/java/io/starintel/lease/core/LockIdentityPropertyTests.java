package io.starintel.lease.core;

import java.util.Locale;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Properties of lock-key v1: equivalent spellings give one key, any single component change gives another key,
 * forbidden characters and length bounds are rejected.
 */
class LockIdentityPropertyTests {

	@Provide
	Arbitrary<String> slugs() {
		return Arbitraries.strings().withCharRange('a', 'z').numeric().withChars('-', '_').ofMinLength(1)
			.ofMaxLength(64).filter(s -> Character.isLetterOrDigit(s.charAt(0)));
	}

	@Property(tries = 300)
	void caseVariantsOfSlugsGiveOneKey(@ForAll("slugs") String tenant, @ForAll("slugs") String actor) {
		LockIdentity lower = LockIdentity.of(tenant, "p", "ns", "T1", actor, "wf", null);
		LockIdentity upper = LockIdentity.of(tenant.toUpperCase(Locale.ROOT), "P", "NS", "T1",
				actor.toUpperCase(Locale.ROOT), "WF", "DEFAULT");
		assertThat(upper.lockKey()).isEqualTo(lower.lockKey());
	}

	@Property(tries = 300)
	void changingAnyComponentChangesTheKey(@ForAll("slugs") String value, @ForAll @IntRange(min = 0, max = 5) int position) {
		String[] base = { "tenant", "program", "ns", "target", "actor", "wf" };
		String[] changed = base.clone();
		changed[position] = base[position].equals(value) ? value + "x" : value;
		LockIdentity a = LockIdentity.of(base[0], base[1], base[2], base[3], base[4], base[5], null);
		LockIdentity b = LockIdentity.of(changed[0], changed[1], changed[2], changed[3], changed[4], changed[5], null);
		assertThat(b.lockKey()).isNotEqualTo(a.lockKey());
	}

	@Property(tries = 200)
	void forbiddenCharactersAreRejectedInTargetIds(@ForAll("forbidden") String bad) {
		assertThatThrownBy(() -> LockIdentity.of("t", "p", "ns", "a" + bad + "b", "actor", "wf", null))
			.isInstanceOf(InvalidLeaseRequestException.class)
			.extracting(ex -> ((InvalidLeaseRequestException) ex).field())
			.isEqualTo("target_id");
	}

	@Provide
	Arbitrary<String> forbidden() {
		return Arbitraries.of(" ", "\t", "\n", "\u0000", "\u200d", "\u202e", "\u2028", "\u2029", "\u00a0", "\ue000",
				"/", "\\", "\"", "*", "?", "[", "]", "%", "..", "\u0378");
	}

	@Property(tries = 50)
	void targetIdByteBoundHoldsWithMultiByteCharacters(@ForAll @IntRange(min = 0, max = 3) int extra) {
		String atBound = "é".repeat(128); // 2 bytes each: exactly 256 bytes
		assertThat(LockIdentity.of("t", "p", "ns", atBound, "a", "w", null).targetId()).isEqualTo(atBound);
		String over = atBound + "x".repeat(extra + 1);
		assertThatThrownBy(() -> LockIdentity.of("t", "p", "ns", over, "a", "w", null))
			.isInstanceOf(InvalidLeaseRequestException.class);
	}

	@Property(tries = 20)
	void slugLengthBound(@ForAll @IntRange(min = 1, max = 5) int extra) {
		assertThat(LockIdentity.of("t".repeat(64), "p", "ns", "x", "a", "w", null).tenantId()).hasSize(64);
		assertThatThrownBy(() -> LockIdentity.of("t".repeat(64 + extra), "p", "ns", "x", "a", "w", null))
			.isInstanceOf(InvalidLeaseRequestException.class)
			.extracting(ex -> ((InvalidLeaseRequestException) ex).field())
			.isEqualTo("tenant_id");
	}

	@Property(tries = 20)
	void unpairedSurrogatesAreRejected(@ForAll @IntRange(min = 0xD800, max = 0xDFFF) int surrogate) {
		assertThatThrownBy(() -> LockIdentity.of("t", "p", "ns", "a" + (char) surrogate, "a", "w", null))
			.isInstanceOf(InvalidLeaseRequestException.class);
	}

	@Property(tries = 20)
	void nfcEquivalentSpellingsGiveOneKey(@ForAll("slugs") String prefix) {
		String composed = prefix + "\u00e9";
		String decomposed = prefix + "e\u0301";
		assertThat(LockIdentity.of("t", "p", "ns", decomposed, "a", "w", null).lockKey())
			.isEqualTo(LockIdentity.of("t", "p", "ns", composed, "a", "w", null).lockKey());
	}

}
