package io.starintel.lease.audit;

import java.time.Instant;
import java.util.Map;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import io.starintel.lease.audit.internal.AuditEventBuilder;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;

import static org.assertj.core.api.Assertions.assertThat;

/** The log line has exactly the event's fields, in {@link AuditEvent#toFields()} order, quoted when needed. */
class LogAuditSinkTests {

	private final Logger logger = (Logger) LoggerFactory.getLogger("io.starintel.lease.audit");

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	@BeforeEach
	void attach() {
		this.appender.start();
		this.logger.addAppender(this.appender);
	}

	@AfterEach
	void detach() {
		this.logger.detachAppender(this.appender);
	}

	@Test
	void whenAnEventIsRecordedThenTheLineHasEveryFieldOfToFieldsInOrder() {
		AuditEvent event = new AuditEventBuilder(AuditEventType.ACQUIRE, ResultCode.LEASE_ACQUIRED)
			.identity(LockIdentity.of("tenant-a", "program-a", "ns", "target-1", "actor", "default", null))
			.target("ns", "Target 1")
			.ids("request_1", "corr=1")
			.execution("trace_1", "execution_1", "job_1")
			.principal(PrincipalClass.WORKER, "worker-1", "key_1", "instance-1")
			.lease("lease_1", 1_839_334_874_422_272L)
			.requestedTtlMs(30_000L)
			.states(null, LeaseState.ACTIVE.wireName())
			.reason("say \"why\" \\ here")
			.time(Instant.parse("2026-12-02T15:31:03.303Z"), Instant.parse("2026-12-02T15:31:03.290Z"))
			.deadline(Instant.parse("2026-12-02T15:31:13.290Z"), Instant.parse("2026-12-02T15:31:03.290Z"))
			.build();
		new LogAuditSink().record(event);
		new LogAuditSink().record(event);
		assertThat(this.appender.list).hasSize(2);
		assertThat(this.appender.list.get(0).getFormattedMessage()).isEqualTo(expected(event))
			.isEqualTo(this.appender.list.get(1).getFormattedMessage())
			.contains(" latency_ms=13 ", " fencing_token=1839334874422272 ", " requested_ttl_ms=30000 ",
					" target_id=\"Target 1\" ", " correlation_id=\"corr=1\" ", " reason=\"say \\\"why\\\" \\\\ here\"");
	}

	@Test
	void whenAnEventHasARecordThenNumericFieldsAreWrittenAsTheirDecimalText() {
		LockIdentity identity = LockIdentity.of("tenant-a", "program-a", "ns", "t1", "actor", "default", null);
		LeaseRecord record = new LeaseRecord(identity, "lease_2",
				new LeaseOwner("worker-1", "client-1", "key-1", "instance-1"), 7L, Instant.EPOCH, Instant.EPOCH,
				Instant.EPOCH.plusSeconds(30), 30_000L, 300_000L, "e", "j", "t", "request_2", LeaseMetadata.empty(),
				LeaseState.ACTIVE);
		AuditEvent event = new AuditEventBuilder(AuditEventType.RENEW, ResultCode.LEASE_RENEWED).record(record)
			.build();
		new LogAuditSink().record(event);
		assertThat(this.appender.list.get(0).getFormattedMessage()).isEqualTo(expected(event))
			.contains(" latency_ms=0 ", " fencing_token=7 ", " effective_ttl_ms=30000 ");
	}

	private static String expected(AuditEvent event) {
		StringBuilder line = new StringBuilder("target_lease_audit");
		for (Map.Entry<String, String> field : event.toFields().entrySet()) {
			line.append(' ').append(field.getKey()).append('=').append(LogAuditSink.quote(field.getValue()));
		}
		return line.toString();
	}

}
