package io.starintel.lease.core.internal;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Generated identifiers: {@code prefix_} and 26 Crockford base32 characters, valid and unique. */
class IdentifiersTests {

	@Test
	void whenGeneratingThenTheIdIsThePrefixAnd26CrockfordCharacters() {
		Set<String> seen = new HashSet<>();
		for (int i = 0; i < 10_000; i++) {
			String id = Identifiers.generate("request");
			assertThat(id).hasSize("request_".length() + 26).startsWith("request_");
			assertThat(id.substring("request_".length())).matches("[0-9A-HJKMNP-TV-Z]{26}");
			assertThat(Identifiers.isValid(id)).isTrue();
			assertThat(seen.add(id)).isTrue();
		}
	}

	@Test
	void whenGeneratingWithAnEmptyOrNonAsciiPrefixThenThePrefixIsKeptAsIs() {
		assertThat(Identifiers.generate("")).matches("_[0-9A-HJKMNP-TV-Z]{26}");
		assertThat(Identifiers.generate("dé")).matches("dé_[0-9A-HJKMNP-TV-Z]{26}");
	}

	@Test
	void whenGeneratingOnManyThreadsThenIdsStayUnique() throws Exception {
		Set<String> seen = ConcurrentHashMap.newKeySet();
		Thread[] threads = new Thread[4];
		for (int t = 0; t < threads.length; t++) {
			threads[t] = new Thread(() -> {
				for (int i = 0; i < 5_000; i++) {
					seen.add(Identifiers.generate("dec"));
				}
			});
			threads[t].start();
		}
		for (Thread thread : threads) {
			thread.join();
		}
		assertThat(seen).hasSize(20_000);
	}

}
