package io.starintel.lease.store.redis;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.internal.StoredRecord;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The acquire's fixed-part rest as the scripts receive it: the reference encoder's text, as UTF-8 bytes. */
class ArgumentBytesTests {

	private static final LeaseOwner OWNER = new LeaseOwner("prn_worker", "client-1", "cred_1", "instance_a");

	@Test
	void theJoinedFixedRestIsTheReferenceEncodersTextAsUtf8() {
		LeaseMetadata ascii = LeaseMetadata.of(Map.of("source", "feed-7"));
		LeaseMetadata accented = LeaseMetadata.of(Map.of("lieu", "Zürich ☃ 東京"));
		for (LeaseMetadata metadata : new LeaseMetadata[] { LeaseMetadata.empty(), ascii, accented }) {
			String expected = StoredRecord.fixedRest("lease_abc_DEF", OWNER, "execution_1", "job_1", "trace_1",
					"request_1", metadata);
			byte[] joined = ArgumentBytes.joined("lease_abc_DEF", OWNER.principalId(), OWNER.serviceInstanceId(),
					OWNER.clientId(), OWNER.credentialId(), "execution_1", "job_1", "trace_1", "request_1",
					metadata.json());
			assertThat(joined).as(metadata.json()).isEqualTo(expected.getBytes(StandardCharsets.UTF_8));
		}
	}

}
