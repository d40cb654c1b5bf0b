package io.starintel.lease.fence.couchdb;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.ektorp.CouchDbConnector;
import org.ektorp.DbAccessException;
import org.ektorp.UpdateConflictException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FenceStamp;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.fence.couchdb.internal.FenceDesignDocument;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;

/**
 * The decorator without a server: stamping, refusal before any write, and the mapping of Ektorp's errors.
 */
class FencedCouchDbConnectorTests {

	private final InMemoryLeaseStore store = new InMemoryLeaseStore();

	private final CouchDbConnector delegate = mock(CouchDbConnector.class);

	private final FencedCouchDbConnector fenced = new FencedCouchDbConnector(this.delegate, new FenceGuard(this.store));

	private LeaseContext context;

	private LeaseContext.Scope scope;

	@BeforeEach
	void bind() {
		LockIdentity identity = LockIdentity.of("tenant-a", "p-" + UUID.randomUUID().toString().substring(0, 8),
				"starintel-target", "t1", "usernamegen", "default", null);
		this.context = new LeaseContext(this.store.acquire(new AcquireRequest(identity, Identifiers.generate("request"),
				Instant.now().plusSeconds(30), new LeaseOwner("alice", "client_1", "key_1", "instance-1"),
				Duration.ofSeconds(30).toMillis(), 300_000, "execution_1", "job_1", "trace_1", LeaseMetadata.empty()))
			.lease());
		this.scope = LeaseContext.bind(this.context);
	}

	@AfterEach
	void unbind() {
		this.scope.close();
	}

	@Test
	void mapDocumentIsStampedWithDigestNeverTheRawKey() {
		Map<String, Object> doc = new LinkedHashMap<>(Map.of("_id", "d1"));
		assertThat(this.fenced.tryCreate(doc).isAccepted()).isTrue();
		verify(this.delegate).create(doc);
		Map<?, ?> fence = (Map<?, ?>) doc.get(FenceStamp.FIELD);
		assertThat(fence.get("lock_key_digest")).isEqualTo(this.context.identity().keyDigest());
		assertThat(fence.get("fencing_token")).isEqualTo(this.context.fencingToken());
		assertThat(fence.get("lease_id")).isEqualTo(this.context.leaseId());
		assertThat(fence.get("execution_id")).isEqualTo("execution_1");
		assertThat(fence.get("trace_id")).isEqualTo("trace_1");
		assertThat(fence.get("accepted_at")).isNotNull();
		assertThat(fence.values()).noneMatch((v) -> String.valueOf(v).contains(this.context.lockKey()));
	}

	@Test
	void objectNodeAndFenceStampedDocumentsAreStamped() {
		ObjectNode node = new ObjectMapper().createObjectNode().put("_id", "d2");
		assertThat(this.fenced.tryCreate(node).isAccepted()).isTrue();
		assertThat(node.get(FenceStamp.FIELD).get("fencing_token").asLong()).isEqualTo(this.context.fencingToken());
		Pojo pojo = new Pojo();
		assertThat(this.fenced.tryCreate(pojo).isAccepted()).isTrue();
		assertThat(pojo.getStarintelFence()).containsEntry("lease_id", this.context.leaseId());
		// an update needs the document's id: this type has none, so nothing is authorized, stamped or sent
		Pojo noId = new Pojo();
		assertThat(this.fenced.tryUpdate(noId).outcome()).isEqualTo(FenceOutcome.INVALID_REQUEST);
		assertThat(noId.getStarintelFence()).isNull();
	}

	@Test
	@SuppressWarnings("unchecked")
	void deletionIsAFencedTombstoneDocumentNeverADeletedRevision() {
		assertThat(this.fenced.tryDelete("d3", "1-abc").isAccepted()).isTrue();
		org.mockito.ArgumentCaptor<Object> written = org.mockito.ArgumentCaptor.forClass(Object.class);
		verify(this.delegate).update(written.capture());
		Map<String, Object> tombstone = (Map<String, Object>) written.getValue();
		assertThat(tombstone).containsEntry("_id", "d3")
			.containsEntry("_rev", "1-abc")
			.containsEntry(FencedCouchDbConnector.DELETED_FIELD, true)
			.doesNotContainKey("_deleted")
			.containsKey(FenceStamp.FIELD);
	}

	@Test
	void documentThatCannotCarryAStampIsAnInvalidRequestAndNothingIsSent() {
		assertThat(this.fenced.tryCreate(new Object()).outcome()).isEqualTo(FenceOutcome.INVALID_REQUEST);
		FencedWriteResult immutable = this.fenced.tryCreate(Map.of("_id", "immutable"));
		assertThat(immutable.outcome()).isEqualTo(FenceOutcome.INVALID_REQUEST);
		assertThat(immutable.detail()).contains("immutable Map");
		assertThat(immutable.stamp()).as("never authorized").isNull();
		verifyNoInteractions(this.delegate);
	}

	@Test
	void staleRevisionIsConflict() {
		doThrow(new UpdateConflictException("d1", "1-x")).when(this.delegate).update(any());
		assertThat(this.fenced.tryUpdate(new HashMap<>(Map.of("_id", "d1", "_rev", "1-x"))).outcome())
			.isEqualTo(FenceOutcome.CONFLICT);
	}

	@Test
	void designDocumentRejectionIsLeaseLostWithTheRuleAsDetail() {
		doThrow(new DbAccessException("403:Forbidden\nURI: /db/d1\nResponse Body: \n"
				+ "{\"error\":\"forbidden\",\"reason\":\"starintel_fence: fencing token below the stored token\"}"))
			.when(this.delegate)
			.update(any());
		var result = this.fenced.tryUpdate(new HashMap<>(Map.of("_id", "d1", "_rev", "2-y")));
		assertThat(result.outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
		assertThat(result.reason()).isEqualTo(Reason.TOKEN_BELOW_HIGH_WATER_MARK);
		assertThat(result.detail()).isEqualTo("starintel_fence: fencing token below the stored token");
	}

	@Test
	void otherFailuresAreOutcomeUnknownWithoutBackendText() {
		doThrow(new DbAccessException("500:Internal error http://admin:secret@db")).when(this.delegate).update(any());
		var result = this.fenced.tryUpdate(new HashMap<>(Map.of("_id", "d1", "_rev", "2-y")));
		assertThat(result.outcome()).isEqualTo(FenceOutcome.OUTCOME_UNKNOWN);
		assertThat(result.detail()).doesNotContain("secret");
	}

	@Test
	void withoutContextNothingIsSent() {
		this.scope.close();
		assertThat(this.fenced.tryCreate(new HashMap<>(Map.of("_id", "d3"))).outcome())
			.isEqualTo(FenceOutcome.NO_LEASE_CONTEXT);
		assertThat(this.fenced.tryExecuteBulk(java.util.List.of(new HashMap<>(Map.of("_id", "d4")))))
			.allMatch((r) -> r.result().outcome() == FenceOutcome.NO_LEASE_CONTEXT);
		verifyNoInteractions(this.delegate);
		this.scope = LeaseContext.bind(this.context);
	}

	@Test
	void writesThatCannotCarryAStampAreUnsupported() {
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> this.fenced.copy("a", "b"));
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> this.fenced.deleteAttachment("a", "1-x", "file"));
		verifyNoInteractions(this.delegate);
	}

	@Test
	void designDocumentSourceIsTheFunction() {
		assertThat(FenceDesignDocument.validateFunction()).startsWith("function (newDoc, oldDoc")
			.contains("fencing token below the stored token");
	}

	static final class Pojo implements FenceStamped {

		private @Nullable Map<String, Object> fence;

		@Override
		public @Nullable Map<String, Object> getStarintelFence() {
			return this.fence;
		}

		@Override
		public void setStarintelFence(@Nullable Map<String, Object> fence) {
			this.fence = fence;
		}

	}

}
