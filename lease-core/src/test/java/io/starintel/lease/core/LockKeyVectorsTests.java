package io.starintel.lease.core;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Reproduces every line of lock-key-v1-vectors.jsonl (copied from the shared spec).
 */
class LockKeyVectorsTests {

	@Test
	void reproducesEveryVector() throws Exception {
		List<JsonNode> vectors = new ArrayList<>();
		try (BufferedReader reader = new BufferedReader(new InputStreamReader(
				getClass().getResourceAsStream("lock-key-v1-vectors.jsonl"), StandardCharsets.UTF_8))) {
			JsonMapper mapper = JsonMapper.builder().build();
			for (String line = reader.readLine(); line != null; line = reader.readLine()) {
				if (!line.isBlank()) {
					vectors.add(mapper.readTree(line));
				}
			}
		}
		assertThat(vectors).hasSize(13);
		for (JsonNode vector : vectors) {
			String[] in = new String[7];
			for (int i = 0; i < 7; i++) {
				JsonNode value = vector.get("in").get(i);
				in[i] = value.isNull() ? null : value.asString();
			}
			if (vector.has("error")) {
				String component = vector.get("why").asString().split(":")[0];
				assertThatThrownBy(() -> LockIdentity.of(in[0], in[1], in[2], in[3], in[4], in[5], in[6]))
					.isInstanceOf(InvalidLeaseRequestException.class)
					.satisfies(ex -> assertThat(((InvalidLeaseRequestException) ex).field()).isEqualTo(component))
					.satisfies(ex -> assertThat(((InvalidLeaseRequestException) ex).code())
						.isEqualTo(ResultCode.INVALID_LEASE_REQUEST));
			}
			else {
				LockIdentity identity = LockIdentity.of(in[0], in[1], in[2], in[3], in[4], in[5], in[6]);
				assertThat(identity.canonicalText()).isEqualTo(vector.get("canonical").asString());
				assertThat(identity.lockKey()).isEqualTo(vector.get("lock_key").asString()).hasSize(26 + 43);
			}
		}
	}

}
