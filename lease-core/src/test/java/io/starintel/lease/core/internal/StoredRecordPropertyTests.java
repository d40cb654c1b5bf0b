package io.starintel.lease.core.internal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;

import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.LockIdentity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The storage form decodes from its UTF-8 bytes, whole or in the parts a store function replies with, to the record
 * that was encoded; identity components with multi-byte characters are compared in place, and a record of another
 * identity, or with a field too many or too few in any part, is corrupt.
 */
class StoredRecordPropertyTests {

	@Provide
	Arbitrary<String> texts() {
		return Arbitraries.strings().withCharRange('a', 'z').numeric().withChars('é', '€', 'ß', '日', '-')
			.ofMinLength(1).ofMaxLength(30).filter(s -> Character.isLetterOrDigit(s.charAt(0)));
	}

	@Provide
	Arbitrary<LeaseState> states() {
		return Arbitraries.of(LeaseState.class);
	}

	private static LeaseRecord record(String targetId, String note, LeaseState state, long token) {
		LockIdentity identity = LockIdentity.of("tenant-a", "program-a", "starintel-target", targetId, "usernamegen",
				"default", null);
		LeaseMetadata metadata = note.length() % 3 == 0 ? LeaseMetadata.empty()
				: LeaseMetadata.parse("{\"note\":\"" + note + "\"}");
		return new LeaseRecord(identity, "lease_" + note.length(), new LeaseOwner("prn_a", "client_1", "key_1", "instance_a"),
				token, Instant.ofEpochMilli(1_764_547_200_000L), Instant.ofEpochMilli(1_764_547_201_000L),
				Instant.ofEpochMilli(1_764_547_260_000L), 60_000, 300_000, "execution_1", "job_1", "trace_1",
				"request_1", metadata, state);
	}

	@Property(tries = 300)
	void decodesWholeAndInPartsToTheEncodedRecord(@ForAll("texts") String targetId, @ForAll("texts") String note,
			@ForAll("states") LeaseState state,
			@ForAll @LongRange(min = 1, max = LeaseRecord.MAX_FENCING_TOKEN - 1) long token) {
		LeaseRecord record = record(targetId, note, state, token);
		String wire = StoredRecord.encode(record);
		byte[][] parts = parts(wire);
		assertThat(StoredRecord.decode(wire, record.identity())).isEqualTo(record);
		assertThat(StoredRecord.decode(wire, null)).isEqualTo(record);
		assertThat(StoredRecord.decode(parts[0], parts[1], parts[2], record.identity())).isEqualTo(record);
		assertThat(StoredRecord.decode(parts[0], parts[1], parts[2], null)).isEqualTo(record);
		byte[] keyed = ("digest" + StoredRecord.SEP + wire).getBytes(StandardCharsets.UTF_8);
		assertThat(StoredRecord.decode(keyed, 7, record.identity())).isEqualTo(record);
	}

	@Property(tries = 300)
	void aRecordOfAnotherIdentityIsCorrupt(@ForAll("texts") String targetId, @ForAll("texts") String other) {
		LeaseRecord record = record(targetId, "n", LeaseState.ACTIVE, 7);
		LeaseRecord otherRecord = record(other, "n", LeaseState.ACTIVE, 7);
		if (otherRecord.identity().equals(record.identity())) {
			return;
		}
		String wire = StoredRecord.encode(record);
		byte[][] parts = parts(wire);
		assertThatExceptionOfType(CorruptRecordException.class)
			.isThrownBy(() -> StoredRecord.decode(wire, otherRecord.identity()));
		assertThatExceptionOfType(CorruptRecordException.class)
			.isThrownBy(() -> StoredRecord.decode(parts[0], parts[1], parts[2], otherRecord.identity()));
	}

	@Property(tries = 100)
	void aFieldTooManyOrTooFewInAnyPartIsCorrupt(@ForAll("texts") String targetId) {
		LeaseRecord record = record(targetId, "n", LeaseState.RELEASED, 7);
		byte[][] parts = parts(StoredRecord.encode(record));
		byte[] sep = { (byte) StoredRecord.SEP };
		byte[] stateTooMany = concat(parts[0], sep, parts[0]);
		byte[] tailTooMany = concat(parts[1], sep, "1".getBytes(StandardCharsets.US_ASCII));
		byte[] tailTooFew = Arrays.copyOf(parts[1], lastSep(parts[1]));
		byte[] fixedTooFew = Arrays.copyOf(parts[2], lastSep(parts[2]));
		assertThatExceptionOfType(CorruptRecordException.class)
			.isThrownBy(() -> StoredRecord.decode(stateTooMany, parts[1], parts[2], null));
		assertThatExceptionOfType(CorruptRecordException.class)
			.isThrownBy(() -> StoredRecord.decode(parts[0], tailTooMany, parts[2], null));
		assertThatExceptionOfType(CorruptRecordException.class)
			.isThrownBy(() -> StoredRecord.decode(parts[0], tailTooFew, parts[2], null));
		assertThatExceptionOfType(CorruptRecordException.class)
			.isThrownBy(() -> StoredRecord.decode(parts[0], parts[1], fixedTooFew, null));
		assertThatExceptionOfType(CorruptRecordException.class)
			.isThrownBy(() -> StoredRecord.decode(parts[0], new byte[0], parts[2], null));
	}

	/** {@code state}, {@code tail} (SEP and the six numbers after the state) and {@code fixed} of a wire form. */
	private static byte[][] parts(String wire) {
		int stateEnd = wire.indexOf(StoredRecord.SEP, 2);
		int tailEnd = stateEnd;
		for (int i = 0; i < 6; i++) {
			tailEnd = wire.indexOf(StoredRecord.SEP, tailEnd + 1);
		}
		return new byte[][] { utf8(wire.substring(2, stateEnd)), utf8(wire.substring(stateEnd, tailEnd)),
				utf8(wire.substring(tailEnd + 1)) };
	}

	private static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static int lastSep(byte[] bytes) {
		for (int i = bytes.length - 1; i >= 0; i--) {
			if (bytes[i] == StoredRecord.SEP) {
				return i;
			}
		}
		throw new IllegalArgumentException("no separator");
	}

	private static byte[] concat(byte[]... arrays) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		for (byte[] array : arrays) {
			out.writeBytes(array);
		}
		return out.toByteArray();
	}

}
