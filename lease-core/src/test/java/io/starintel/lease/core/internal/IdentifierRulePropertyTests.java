package io.starintel.lease.core.internal;

import java.util.regex.Pattern;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import io.starintel.lease.core.InvalidLeaseRequestException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The identifier rule ("1..128 characters of {@code [A-Za-z0-9._:@-]}") as {@link Identifiers#isValid} decides it,
 * against the rule written as a regular expression, for strings of allowed characters mixed with every other ASCII
 * character and with characters beyond ASCII, of lengths around the bounds.
 */
class IdentifierRulePropertyTests {

	private static final Pattern RULE = Pattern.compile("[A-Za-z0-9._:@-]{1,128}");

	@Property(tries = 2000)
	void isValidDecidesAsTheRule(@ForAll("candidates") String value) {
		boolean expected = RULE.matcher(value).matches();
		assertThat(Identifiers.isValid(value)).as("%s", value).isEqualTo(expected);
		if (expected) {
			assertThat(Identifiers.require("request_id", value)).isSameAs(value);
		}
		else {
			assertThatExceptionOfType(InvalidLeaseRequestException.class)
				.isThrownBy(() -> Identifiers.require("request_id", value));
		}
	}

	@Provide
	Arbitrary<String> candidates() {
		Arbitrary<Character> allowed = Arbitraries.chars().with("._:@-").range('a', 'z').range('A', 'Z').range('0', '9');
		Arbitrary<Character> other = Arbitraries.chars().range('\u0000', '\u00ff').with('\u0100', '\u017f', '\uffff');
		Arbitrary<Character> mostlyAllowed = Arbitraries.frequencyOf(Tuple.of(30, allowed),
				Tuple.of(1, other));
		return Arbitraries.oneOf(mostlyAllowed.list().ofMinSize(0).ofMaxSize(140),
				allowed.list().ofMinSize(126).ofMaxSize(130))
			.map(chars -> {
				StringBuilder text = new StringBuilder(chars.size());
				chars.forEach(text::append);
				return text.toString();
			});
	}

}
