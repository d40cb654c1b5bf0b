package io.starintel.lease.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.starintel.lease.core.internal.CorruptRecordException;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.internal.LeaseRecordJson;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.StoredRecord;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Script replies become typed results only when they are exactly what the scripts document; anything else is a
 * corrupt record (fail closed).
 */
class ReplyReaderTests {

	private static final LockIdentity IDENTITY = LockIdentity.of("tenant-a", "program-a", "starintel-target", "t1",
			"usernamegen", "default", null);

	private static final LeaseRecord RECORD = new LeaseRecord(IDENTITY, "lease_1",
			new LeaseOwner("prn_a", "client_1", "key_1", "instance_a"), 1_843_000_000_000_123L,
			Instant.parse("2026-12-01T00:00:00Z"), Instant.parse("2026-12-01T00:00:00Z"),
			Instant.parse("2026-12-01T00:01:00Z"), 60_000, 300_000, "execution_1", "job_1", "trace_1", "request_1",
			LeaseMetadata.empty(), LeaseState.ACTIVE);

	private static List<Object> reply(String code, String reason, String record) {
		List<Object> reply = new ArrayList<>();
		List<String> values = (record == null) ? List.of(code, reason, "1764547200000", "0")
				: List.of(code, reason, "1764547200000", "0", "active", "0", record);
		for (String value : values) {
			reply.add(value.getBytes(StandardCharsets.UTF_8));
		}
		return reply;
	}

	@Test
	void readsARecordWithExactTokenDigits() {
		LeaseResult result = ReplyReader.single(reply("lease_renewed", "none", StoredRecord.encode(RECORD)), IDENTITY,
				null, null);
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(result.lease()).isEqualTo(RECORD);
		assertThat(result.lease().fencingToken()).isEqualTo(1_843_000_000_000_123L);
		assertThat(result.decidedAt()).isEqualTo(Instant.ofEpochMilli(1764547200000L));
	}

	private static List<Object> fresh(String code, String decided, String third) {
		return new ArrayList<>(List.of(code.getBytes(StandardCharsets.UTF_8), decided.getBytes(StandardCharsets.UTF_8),
				third.getBytes(StandardCharsets.UTF_8)));
	}

	@Test
	void freshAcquireIsTheRequestWithTheGeneratedLeaseIdTheTokenAndTheEffectiveTtl() {
		AcquireRequest request = new AcquireRequest(IDENTITY, "request_1", Instant.now().plusSeconds(5), RECORD.owner(),
				60_000, 45_000, "execution_1", "job_1", "trace_1", LeaseMetadata.empty());
		LeaseResult result = ReplyReader.single(fresh("lease_acquired", "1764547200000", "1843000000000123"), IDENTITY,
				request, "lease_1");
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(result.replayed()).isFalse();
		assertThat(result.currentState()).isEqualTo(LeaseState.ACTIVE);
		LeaseRecord lease = result.lease();
		assertThat(lease.leaseId()).isEqualTo("lease_1");
		assertThat(lease.fencingToken()).isEqualTo(1_843_000_000_000_123L);
		assertThat(lease.acquiredAt()).isEqualTo(Instant.ofEpochMilli(1764547200000L)).isEqualTo(lease.renewedAt());
		assertThat(lease.expiresAt()).as("capped by the maximum lifetime")
			.isEqualTo(Instant.ofEpochMilli(1764547200000L + 45_000));
		assertThat(lease.ttlMs()).isEqualTo(60_000);
		assertThat(lease.maximumLifetimeMs()).isEqualTo(45_000);
	}

	@Test
	void freshReleaseCarriesTheEndedRecordAndItsState() {
		LeaseRecord released = new LeaseRecord(IDENTITY, RECORD.leaseId(), RECORD.owner(), RECORD.fencingToken(),
				RECORD.acquiredAt(), RECORD.renewedAt(), RECORD.expiresAt(), RECORD.ttlMs(), RECORD.maximumLifetimeMs(),
				RECORD.executionId(), RECORD.jobId(), RECORD.traceId(), RECORD.requestId(), RECORD.metadata(),
				LeaseState.RELEASED);
		LeaseResult result = ReplyReader.single(inParts("lease_released", StoredRecord.encode(released)), IDENTITY,
				null, null);
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertThat(result.lease()).isEqualTo(released);
		assertThat(result.currentState()).isEqualTo(LeaseState.RELEASED);
		assertThat(result.replayed()).isFalse();
		assertThat(result.decidedAt()).isEqualTo(Instant.ofEpochMilli(1764547200000L));
	}

	@Test
	void freshRenewalInPartsIsTheRecordItLeft() {
		LeaseResult result = ReplyReader.single(inParts("lease_renewed", StoredRecord.encode(RECORD)), IDENTITY, null,
				null);
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(result.lease()).isEqualTo(RECORD);
		assertThat(result.currentState()).isEqualTo(LeaseState.ACTIVE);
	}

	@Test
	void recordInPartsOfAnotherIdentityIsCorrupt() {
		LockIdentity other = LockIdentity.of("tenant-a", "program-a", "starintel-target", "t2", "usernamegen",
				"default", null);
		assertThatExceptionOfType(CorruptRecordException.class).isThrownBy(
				() -> ReplyReader.single(inParts("lease_renewed", StoredRecord.encode(RECORD)), other, null, null));
	}

	@Test
	void threeElementsOtherThanAFreshAcquireAreCorrupt() {
		assertThatExceptionOfType(CorruptRecordException.class).isThrownBy(() -> ReplyReader
			.single(fresh("lease_released", "1764547200000", StoredRecord.encode(RECORD)), IDENTITY, null, null));
	}

	/**
	 * A fresh reply whose record comes in the parts the function holds it in: {@code state}, {@code tail} (SEP and the
	 * six numbers after the state) and {@code fixed}, cut from the wire form {@code 2 SEP state tail SEP fixed}.
	 */
	private static List<Object> inParts(String code, String wire) {
		int stateEnd = wire.indexOf(StoredRecord.SEP, 2);
		int tailEnd = stateEnd;
		for (int i = 0; i < 6; i++) {
			tailEnd = wire.indexOf(StoredRecord.SEP, tailEnd + 1);
		}
		return new ArrayList<>(List.of(bytes(code), bytes("1764547200000"), bytes(wire.substring(2, stateEnd)),
				bytes(wire.substring(stateEnd, tailEnd)), bytes(wire.substring(tailEnd + 1))));
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	@Test
	void freshAcquireWithoutItsRequestIsCorrupt() {
		assertThatExceptionOfType(CorruptRecordException.class).isThrownBy(() -> ReplyReader
			.single(fresh("lease_acquired", "1764547200000", "1843000000000123"), IDENTITY, null, null));
	}

	@Test
	void failureWithoutRecord() {
		LeaseResult result = ReplyReader.single(reply("lease_lost", "stale_lease", null), IDENTITY, null, null);
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(result.reason()).isEqualTo(Reason.STALE_LEASE);
		assertThat(result.lease()).isNull();
	}

	@Test
	void recordOfAnotherIdentityIsCorrupt() {
		LockIdentity other = LockIdentity.of("tenant-a", "program-a", "starintel-target", "t2", "usernamegen",
				"default", null);
		assertThatExceptionOfType(CorruptRecordException.class).isThrownBy(
				() -> ReplyReader.single(reply("lease_renewed", "none", StoredRecord.encode(RECORD)), other, null, null));
	}

	@Test
	void tokenInFloatNotationIsCorrupt() {
		String record = StoredRecord.encode(RECORD).replace("1843000000000123", "1.843e+15");
		assertThatExceptionOfType(CorruptRecordException.class)
			.isThrownBy(() -> ReplyReader.single(reply("lease_renewed", "none", record), IDENTITY, null, null));
	}

	@Test
	void oddReplyShapeIsCorrupt() {
		List<Object> reply = reply("lease_renewed", "none", StoredRecord.encode(RECORD));
		reply.add("dangling".getBytes(StandardCharsets.UTF_8));
		assertThatExceptionOfType(CorruptRecordException.class)
			.isThrownBy(() -> ReplyReader.single(reply, IDENTITY, null, null));
	}

	@Test
	void v1JsonOfStringsIsReadStrictly() {
		StringBuilder json = new StringBuilder("{");
		LeaseRecordJson.toFields(RECORD).forEach((name, value) -> json.append('"').append(name).append("\":\"")
			.append(value.toString().replace("\"", "\\\"")).append("\","));
		json.setCharAt(json.length() - 1, '}');
		assertThat(ReplyReader.record(json.toString(), IDENTITY)).isEqualTo(RECORD);
		assertThatExceptionOfType(CorruptRecordException.class).isThrownBy(() -> ReplyReader
			.record(json.toString().replace("\"ttl_ms\":\"60000\"", "\"ttl_ms\":60000"), IDENTITY));
	}

	@Test
	void storedRecordRoundTripsAndRejectsTruncation() {
		String text = StoredRecord.encode(RECORD);
		assertThat(StoredRecord.decode(text, null)).isEqualTo(RECORD);
		assertThatExceptionOfType(CorruptRecordException.class)
			.isThrownBy(() -> StoredRecord.decode(text.substring(0, text.length() / 2), IDENTITY));
	}

}
