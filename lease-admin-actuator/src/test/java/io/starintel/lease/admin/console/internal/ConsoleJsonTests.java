package io.starintel.lease.admin.console.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import io.starintel.lease.admin.AdminGrant;
import io.starintel.lease.admin.CredentialKind;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console API's views of durable audit events: fields shown, scope filtering, grouping of rejected commits.
 */
class ConsoleJsonTests {

	private static final AdminGrant OPERATOR = new AdminGrant("prn_op", "key_op", CredentialKind.OPERATOR,
			Set.of("targets:read"), "tenant-a", Set.of("program-a"));

	private static final AdminGrant ACTOR_SCOPED = new AdminGrant("prn_op", "key_op", CredentialKind.OPERATOR,
			Set.of("targets:read"), "tenant-a", Set.of("program-a"), Set.of("usernamegen"), Set.of());

	private static Map<String, String> event(String type, String at, String leaseId, String actor, String... more) {
		Map<String, String> fields = new LinkedHashMap<>();
		fields.put("event_type", type);
		fields.put("backend_time", at);
		fields.put("tenant_id", "tenant-a");
		fields.put("program_id", "program-a");
		fields.put("target_namespace", "starintel-target");
		fields.put("target_id", "t-1");
		fields.put("actor_name", actor);
		fields.put("lease_id", leaseId);
		fields.put("credential_id", "key_secretless_but_hidden");
		fields.put("trace_id", "trace-hidden");
		for (int i = 0; i < more.length; i += 2) {
			fields.put(more[i], more[i + 1]);
		}
		return fields;
	}

	private static final AdminGrant ACTOR_AND_TARGET_SCOPED = new AdminGrant("prn_admin", "key_admin",
			CredentialKind.ADMINISTRATOR, Set.of("targets:read", "targets:revoke"), "tenant-a", Set.of("program-a"),
			Set.of("usernamegen"), Set.of("starintel-target/t-1"));

	/** Issue 33: events without an actor or target (program-level events) made the health view answer 503 (NPE). */
	@Test
	void whenEventsLackActorOrTargetThenAnActorAndTargetScopedHealthViewLeavesThemOut() {
		Map<String, String> noActor = event("target_lease_commit_rejected", "2026-12-01T10:00:01.000Z", "lease_1",
				"usernamegen", "result_code", "lease_lost", "reason", "authorize_commit:stale_lease",
				"enforcement_point", "amqp");
		noActor.remove("actor_name");
		Map<String, String> noTarget = event("target_lease_commit_rejected", "2026-12-01T10:00:02.000Z", "lease_1",
				"usernamegen", "result_code", "lease_lost", "reason", "authorize_commit:stale_lease",
				"enforcement_point", "amqp");
		noTarget.remove("target_id");
		Map<String, String> inScope = event("target_lease_commit_rejected", "2026-12-01T10:00:03.000Z", "lease_1",
				"usernamegen", "result_code", "lease_lost", "reason", "authorize_commit:stale_lease",
				"enforcement_point", "amqp");
		ConsoleAuditReader.StreamRead read = new ConsoleAuditReader.StreamRead(true, List.of(),
				List.of(noActor, noTarget, inScope));
		assertThat(ConsoleJson.inScope(ACTOR_AND_TARGET_SCOPED, noActor)).isFalse();
		assertThat(ConsoleJson.inScope(ACTOR_AND_TARGET_SCOPED, noTarget)).isFalse();
		assertThat(ConsoleJson.inScope(ACTOR_AND_TARGET_SCOPED, inScope)).isTrue();
		JsonNode health = ConsoleJson.MAPPER.readTree(ConsoleJson.health(ACTOR_AND_TARGET_SCOPED, read, 10, "c"));
		assertThat(health.get("code").asString()).isEqualTo("fencing_health_reported");
		assertThat(health.get("rejected_commits")).hasSize(1);
		assertThat(health.get("rejected_commits").get(0).get("count").asInt()).isEqualTo(1);
		// the program-wide grant still sees every event
		assertThat(ConsoleJson.inScope(OPERATOR, noActor)).isTrue();
	}

	/** Issue 36: a recovery's request event names the program, not a lease: not a loss (its leases have theirs). */
	@Test
	void aRecoveryRequestEventIsNotALeaseLoss() {
		Map<String, String> request = event("target_lease_revoke", "2026-12-01T10:00:02.000Z", "lease_x", "usernamegen",
				"result_code", "lease_revoked");
		request.remove("lease_id");
		request.remove("actor_name");
		request.remove("target_namespace");
		request.remove("target_id");
		Map<String, String> revoked = event("target_lease_revoke", "2026-12-01T10:00:01.000Z", "lease_1",
				"usernamegen", "result_code", "lease_revoked", "reason", "restored from backup");
		ConsoleAuditReader.StreamRead read = new ConsoleAuditReader.StreamRead(true, List.of(request, revoked),
				List.of());
		JsonNode health = ConsoleJson.MAPPER.readTree(ConsoleJson.health(OPERATOR, read, 10, "c"));
		assertThat(health.get("lease_losses")).singleElement()
			.satisfies((loss) -> assertThat(loss.get("lease_id").asString()).isEqualTo("lease_1"));
	}

	@Test
	void eventsOfOneLeaseNewestFirstWithoutCredentialOrTraceIds() {
		ConsoleAuditReader.StreamRead read = new ConsoleAuditReader.StreamRead(true,
				List.of(event("target_lease_revoke", "2026-12-01T10:00:02.000Z", "lease_1", "usernamegen",
						"result_code", "lease_revoked", "reason", "incident_id=INC-1 stuck")),
				List.of(event("target_lease_commit_rejected", "2026-12-01T10:00:03.000Z", "lease_1", "usernamegen",
						"result_code", "lease_lost", "fencing_token", "42", "reason", "authorize_commit:stale_lease"),
						event("target_lease_renew", "2026-12-01T10:00:01.000Z", "lease_2", "usernamegen"),
						event("target_lease_acquire", "2026-12-01T10:00:00.000Z", "lease_1", "usernamegen")));
		JsonNode body = ConsoleJson.MAPPER.readTree(ConsoleJson.events("lease_1", OPERATOR, read, 10, "corr_1"));
		assertThat(body.get("code").asString()).isEqualTo("audit_events_listed");
		JsonNode events = body.get("events");
		assertThat(events).hasSize(3);
		assertThat(events.get(0).get("event_type").asString()).isEqualTo("target_lease_commit_rejected");
		assertThat(events.get(0).get("fencing_token").asString()).isEqualTo("42");
		assertThat(events.get(1).get("reason").asString()).isEqualTo("incident_id=INC-1 stuck");
		assertThat(events.get(2).get("event_type").asString()).isEqualTo("target_lease_acquire");
		assertThat(body.toString()).doesNotContain("key_secretless_but_hidden", "trace-hidden", "credential_id");
		JsonNode limited = ConsoleJson.MAPPER.readTree(ConsoleJson.events("lease_1", OPERATOR, read, 1, "corr_2"));
		assertThat(limited.get("events")).hasSize(1);
	}

	@Test
	void eventsOutsideTheCallersActorsAreNotShown() {
		ConsoleAuditReader.StreamRead read = new ConsoleAuditReader.StreamRead(true, List.of(),
				List.of(event("target_lease_acquire", "2026-12-01T10:00:00.000Z", "lease_1", "other-actor")));
		JsonNode body = ConsoleJson.MAPPER.readTree(ConsoleJson.events("lease_1", ACTOR_SCOPED, read, 10, "c"));
		assertThat(body.get("events")).isEmpty();
		JsonNode health = ConsoleJson.MAPPER.readTree(ConsoleJson.health(ACTOR_SCOPED, read, 10, "c"));
		assertThat(health.get("rejected_commits")).isEmpty();
	}

	@Test
	void healthGroupsRejectedCommitsByEnforcementPointAndListsLosses() {
		ConsoleAuditReader.StreamRead read = new ConsoleAuditReader.StreamRead(true,
				List.of(event("target_lease_revoke", "2026-12-01T10:00:05.000Z", "lease_1", "usernamegen",
						"result_code", "lease_revoked"),
						event("target_lease_revoke", "2026-12-01T10:00:06.000Z", "lease_9", "usernamegen",
								"result_code", "access_denied")),
				List.of(event("target_lease_commit_rejected", "2026-12-01T10:00:03.000Z", "lease_1", "usernamegen",
						"result_code", "lease_lost", "reason", "authorize_commit:stale_lease"),
						event("target_lease_commit_rejected", "2026-12-01T10:00:04.000Z", "lease_1", "usernamegen",
								"result_code", "lease_lost", "reason", "amqp_consume:token_below_high_water_mark"),
						event("target_lease_commit_rejected", "2026-12-01T10:00:01.000Z", "lease_3", "usernamegen",
								"result_code", "lease_lost"),
						event("target_lease_expire", "2026-12-01T10:00:02.000Z", "lease_4", "usernamegen",
								"result_code", "lease_lost")));
		JsonNode body = ConsoleJson.MAPPER.readTree(ConsoleJson.health(OPERATOR, read, 10, "corr"));
		JsonNode points = body.get("rejected_commits");
		assertThat(points).hasSize(2);
		assertThat(points.get(0).get("enforcement_point").asString()).isEqualTo("amqp_consume");
		assertThat(points.get(0).get("count").asInt()).isEqualTo(1);
		assertThat(points.get(1).get("enforcement_point").asString()).isEqualTo("authorize_commit");
		assertThat(points.get(1).get("count").asInt()).isEqualTo(2);
		assertThat(points.get(1).get("reasons").get("stale_lease").asInt()).isEqualTo(1);
		assertThat(points.get(1).get("reasons").get("lease_lost").asInt()).isEqualTo(1);
		assertThat(points.get(1).get("last_at").asString()).isEqualTo("2026-12-01T10:00:03.000Z");
		JsonNode losses = body.get("lease_losses");
		assertThat(losses).hasSize(2);
		assertThat(losses.get(0).get("lease_id").asString()).isEqualTo("lease_1");
		assertThat(losses.get(1).get("event_type").asString()).isEqualTo("target_lease_expire");
	}

	@Test
	void sessionShowsCapabilitiesAndScopeButNoCredentialId() {
		AdminGrant worker = new AdminGrant("prn_worker", "key_worker", CredentialKind.WORKER,
				Set.of("targets:read", "targets:revoke"), "tenant-a", Set.of("program-b", "program-a"));
		JsonNode body = ConsoleJson.MAPPER.readTree(ConsoleJson.session(worker, "corr", "2026-12-01T10:00:00Z", true));
		// a worker never holds an administrative capability, whatever its authorities say (AdminGrant.has)
		assertThat(body.get("caller").get("capabilities").toString()).isEqualTo("[\"targets:read\"]");
		assertThat(body.get("caller").get("programs").toString()).isEqualTo("[\"program-a\",\"program-b\"]");
		assertThat(body.toString()).doesNotContain("key_worker");
	}

	/** Issue 33: with the endpoint's access read-only, the page offers no write (it would be refused). */
	@Test
	void whenWritesAreNotPermittedThenTheSessionOffersReadOnly() {
		AdminGrant admin = new AdminGrant("prn_admin", "key_admin", CredentialKind.ADMINISTRATOR,
				Set.of("targets:read", "targets:revoke", "targets:force-release"), "tenant-a", Set.of("program-a"));
		JsonNode unrestricted = ConsoleJson.MAPPER
			.readTree(ConsoleJson.session(admin, "corr", "2026-12-01T10:00:00Z", true));
		assertThat(unrestricted.get("caller").get("capabilities")).hasSize(3);
		JsonNode readOnly = ConsoleJson.MAPPER.readTree(ConsoleJson.session(admin, "corr", "2026-12-01T10:00:00Z", false));
		assertThat(readOnly.get("caller").get("capabilities").toString()).isEqualTo("[\"targets:read\"]");
		assertThat(readOnly.get("writes_permitted").asBoolean()).isFalse();
	}

}
