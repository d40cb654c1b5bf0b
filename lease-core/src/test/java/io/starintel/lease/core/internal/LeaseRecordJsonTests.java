package io.starintel.lease.core.internal;

import java.time.Instant;

import org.junit.jupiter.api.Test;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LeaseRecordJsonTests {

	static final LockIdentity IDENTITY = LockIdentity.of("tenant-main", "program-a", "starintel-target",
			"target_01", "usernamegen", "default", null);

	static LeaseRecord record() {
		Instant t = Instant.parse("2026-08-05T12:00:00.000Z");
		return new LeaseRecord(IDENTITY, "lease_01", new LeaseOwner("prn_1", "client_1", "key_1", "instance_1"),
				1839189291142201L, t, t, t.plusSeconds(30), 30000, 300000, "execution_1", "job_1", "trace_1",
				"request_1", LeaseMetadata.parse("{\"b\":1,\"a\":\"x\"}"), LeaseState.ACTIVE);
	}

	@Test
	void roundTripsEveryFieldAndTokenDigitForDigit() {
		String json = LeaseRecordJson.write(record());
		assertThat(json).contains("\"fencing_token\":1839189291142201").contains("\"record_version\":1")
			.contains("\"expires_at\":\"2026-08-05T12:00:30.000Z\"").contains("\"metadata\":{\"a\":\"x\",\"b\":1}");
		assertThat(LeaseRecordJson.read(json, IDENTITY)).isEqualTo(record());
	}

	@Test
	void unknownFieldIsCorrupt() {
		String json = LeaseRecordJson.write(record()).replace("{\"record_version\"", "{\"extra\":1,\"record_version\"");
		assertThatThrownBy(() -> LeaseRecordJson.read(json)).isInstanceOf(CorruptRecordException.class);
	}

	@Test
	void wrongVersionIsCorrupt() {
		String json = LeaseRecordJson.write(record()).replace("\"record_version\":1", "\"record_version\":2");
		assertThatThrownBy(() -> LeaseRecordJson.read(json)).isInstanceOf(CorruptRecordException.class);
	}

	@Test
	void storedTupleDifferentFromRequestedIsCorrupt() {
		LockIdentity other = LockIdentity.of("tenant-main", "program-a", "starintel-target", "target_02",
				"usernamegen", "default", null);
		assertThatThrownBy(() -> LeaseRecordJson.read(LeaseRecordJson.write(record()), other))
			.isInstanceOf(CorruptRecordException.class);
	}

	@Test
	void tamperedLockKeyIsCorrupt() {
		String json = LeaseRecordJson.write(record()).replace(IDENTITY.lockKey(), IDENTITY.lockKey() + "x");
		assertThatThrownBy(() -> LeaseRecordJson.read(json)).isInstanceOf(CorruptRecordException.class);
	}

	@Test
	void garbageIsCorrupt() {
		assertThatThrownBy(() -> LeaseRecordJson.read("{not json")).isInstanceOf(CorruptRecordException.class);
		assertThatThrownBy(() -> LeaseRecordJson.read("[]")).isInstanceOf(CorruptRecordException.class);
	}

	@Test
	void metadataBoundsAreEnforced() {
		assertThatThrownBy(() -> LeaseMetadata.parse("{\"password\":\"x\"}"))
			.isInstanceOf(InvalidLeaseRequestException.class);
		assertThatThrownBy(() -> LeaseMetadata.parse("{\"a\":{\"b\":{\"c\":{\"d\":{}}}}}"))
			.isInstanceOf(InvalidLeaseRequestException.class);
		assertThatThrownBy(() -> LeaseMetadata.parse("[1]")).isInstanceOf(InvalidLeaseRequestException.class);
		assertThatThrownBy(() -> LeaseMetadata.parse("{\"a\":\"" + "x".repeat(300) + "\"}"))
			.isInstanceOf(InvalidLeaseRequestException.class);
		assertThat(LeaseMetadata.parse("{\"z\":1,\"a\":[true,null]}").json()).isEqualTo("{\"a\":[true,null],\"z\":1}");
	}

	@Test
	void resultCodesCarryContractWireNamesAndStatuses() {
		assertThat(ResultCode.LEASE_CONFLICT.wireName()).isEqualTo("lease_conflict");
		assertThat(ResultCode.LEASE_CONFLICT.httpStatus()).isEqualTo(409);
		assertThat(ResultCode.LEASE_CONFLICT.retryable()).isTrue();
		assertThat(ResultCode.LEASE_LOST.retryable()).isFalse();
		assertThat(ResultCode.DEADLINE_EXCEEDED.httpStatus()).isEqualTo(408);
		assertThat(ResultCode.LEASE_OUTCOME_UNKNOWN.httpStatus()).isEqualTo(503);
		assertThat(ResultCode.fromWireName("idempotency_conflict")).isEqualTo(ResultCode.IDEMPOTENCY_CONFLICT);
	}

}
