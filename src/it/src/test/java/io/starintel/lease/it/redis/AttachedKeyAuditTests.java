package io.starintel.lease.it.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Attached-key operations on the assembled application (Redis, lease store and audit auto-configurations; events
 * captured by an {@link AuditSink} bean behind the audit pipeline): put, get, delete and list each emit one
 * {@code target_lease_attach} event with the answered code and the operation in the reason, and no event carries
 * the key's name or value.
 */
class AttachedKeyAuditTests {

	@SpringBootConfiguration
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, LeaseStoreAutoConfiguration.class,
			LeaseAuditAutoConfiguration.class })
	static class App {

		@Bean
		AuditedApplication.Recorded recorded() {
			return new AuditedApplication.Recorded();
		}

	}

	@Test
	void everyAttachedKeyOperationEmitsOneAuditEvent() {
		String program = "p-" + UUID.randomUUID().toString().substring(0, 8);
		try (ConfigurableApplicationContext app = AuditedApplication.start(App.class, "tenant-attach-audit", program, "prn_attach")) {
			LeaseService service = app.getBean(LeaseService.class);
			AuditedApplication.Recorded recorded = app.getBean(AuditedApplication.Recorded.class);
			LockIdentity identity = LockIdentity.of("tenant-attach-audit", program, "starintel-target", "t-attach",
					"usernamegen", "default", "default");
			LeaseResult acquired = service.acquire(AcquireRequest
				.builder(identity, new LeaseOwner("prn_attach", "client_1", "key_1", "instance_1"))
				.ttl(Duration.ofSeconds(30))
				.maximumLifetime(Duration.ofMinutes(5))
				.build(service.newId(), service.deadline()));
			assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
			LeaseHandle handle = acquired.lease().handle();
			String name = "cursor-secretname";
			String put = service.newId();
			AttachmentResult putResult = service
				.putAttached(new AttachPutRequest(handle, name, "value-secretvalue", put, service.deadline()));
			assertThat(putResult.code()).as(putResult.toString()).isNotEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
			String get = service.newId();
			service.getAttached(new AttachGetRequest(identity.scope(), name, get, service.deadline()));
			String list = service.newId();
			service.listAttached(new AttachListRequest(identity.scope(), handle.leaseId(), list, service.deadline()));
			String delete = service.newId();
			service.deleteAttached(new AttachDeleteRequest(handle, name, delete, service.deadline()));
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				List<AuditEvent> attach = recorded.events.stream()
					.filter((e) -> e.eventType() == AuditEventType.ATTACH)
					.toList();
				assertThat(attach).hasSize(4);
				assertThat(attach).filteredOn((e) -> put.equals(e.requestId()))
					.singleElement()
					.satisfies((e) -> {
						assertThat(e.reason()).startsWith("attach_put:");
						assertThat(e.resultCode()).isEqualTo(putResult.code());
						assertThat(e.leaseId()).isEqualTo(handle.leaseId());
					});
				assertThat(attach).filteredOn((e) -> get.equals(e.correlationId())).singleElement()
					.satisfies((e) -> assertThat(e.reason()).startsWith("attach_get:"));
				assertThat(attach).filteredOn((e) -> list.equals(e.correlationId())).singleElement()
					.satisfies((e) -> assertThat(e.reason()).startsWith("attach_list:"));
				assertThat(attach).filteredOn((e) -> delete.equals(e.requestId())).singleElement()
					.satisfies((e) -> assertThat(e.reason()).startsWith("attach_delete:"));
				for (AuditEvent event : attach) {
					assertThat(event.toFields().toString()).doesNotContain("secretname").doesNotContain("secretvalue");
				}
			});
		}
	}

}
