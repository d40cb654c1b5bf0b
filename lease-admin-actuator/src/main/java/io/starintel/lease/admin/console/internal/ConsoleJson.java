package io.starintel.lease.admin.console.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.starintel.lease.admin.AdminGrant;
import io.starintel.lease.admin.internal.AdminCapability;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.core.ResultCode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The console API's JSON views. Audit events are shown with a fixed set of fields only: never credential ids, trace
 * ids, request bodies or lock keys (the streams carry no lock key; credential and trace ids are dropped here), and
 * only events whose identity lies inside the caller's scope.
 */
final class ConsoleJson {

	static final JsonMapper MAPPER = JsonMapper.builder().build();

	/** Audit fields the console shows. */
	static final List<String> EVENT_FIELDS = List.of("event_type", "backend_time", "result_code", "reason",
			"lease_id", "fencing_token", "previous_state", "resulting_state", "principal_class", "principal_id",
			"service_instance_id", "execution_id", "job_id", "target_namespace", "target_id", "actor_name",
			"workflow_name", "operation_class", "request_id", "correlation_id");

	/** Enforcement point of a commit rejection written without one (the store's authorization, before issue 17). */
	static final String DEFAULT_ENFORCEMENT_POINT = "authorize_commit";

	private static final Set<String> LOSS_CODES = Set.of(ResultCode.LEASE_REVOKED.wireName(),
			ResultCode.LEASE_RELEASED.wireName());

	private ConsoleJson() {
	}

	static ObjectNode head(String code, String correlationId) {
		ObjectNode body = JsonNodeFactory.instance.objectNode();
		body.put("status", "success");
		body.put("code", code);
		body.put("correlation_id", correlationId);
		return body;
	}

	/**
	 * Who is signed in: principal, kind, capabilities and scope (no credential id, no secret). Without
	 * {@code writesPermitted} (the endpoint's access is read-only) only {@code targets:read} is offered.
	 */
	static String session(AdminGrant grant, String correlationId, String serverTime, boolean writesPermitted) {
		ObjectNode body = head("console_session", correlationId);
		ObjectNode caller = body.putObject("caller");
		caller.put("principal_id", grant.principalId());
		caller.put("kind", grant.kind().name().toLowerCase(Locale.ROOT));
		ArrayNode capabilities = caller.putArray("capabilities");
		AdminCapability.ALL.stream()
			.filter(grant::has)
			.filter((capability) -> writesPermitted || AdminCapability.READ.equals(capability))
			.sorted()
			.forEach(capabilities::add);
		caller.put("tenant_id", grant.tenantId());
		ArrayNode programs = caller.putArray("programs");
		grant.programs().stream().sorted().forEach(programs::add);
		body.put("server_time", serverTime);
		body.put("writes_permitted", writesPermitted);
		return MAPPER.writeValueAsString(body);
	}

	/** The newest events of one lease from both streams, newest first, at most {@code limit}. */
	static String events(String leaseId, AdminGrant grant, ConsoleAuditReader.StreamRead read, int limit,
			String correlationId) {
		List<Map<String, String>> matching = new ArrayList<>();
		for (List<Map<String, String>> stream : List.of(read.admin(), read.routine())) {
			for (Map<String, String> event : stream) {
				if (leaseId.equals(event.get("lease_id")) && inScope(grant, event)) {
					matching.add(event);
				}
			}
		}
		matching.sort(NEWEST_FIRST);
		ObjectNode body = head("audit_events_listed", correlationId);
		body.put("lease_id", leaseId);
		body.put("stream_available", read.available());
		ArrayNode events = body.putArray("events");
		for (Map<String, String> event : matching.subList(0, Math.min(limit, matching.size()))) {
			events.add(event(event));
		}
		return MAPPER.writeValueAsString(body);
	}

	/**
	 * Fencing health of a program: rejected commits per enforcement point (with counts per reason and the newest
	 * rejection) and the newest lease losses (revoked, force-released, expired).
	 */
	static String health(AdminGrant grant, ConsoleAuditReader.StreamRead read, int losses, String correlationId) {
		Map<String, Map<String, Integer>> byPoint = new TreeMap<>();
		Map<String, String> lastAt = new LinkedHashMap<>();
		List<Map<String, String>> lost = new ArrayList<>();
		for (Map<String, String> event : read.routine()) {
			if (!inScope(grant, event)) {
				continue;
			}
			String type = event.get("event_type");
			if (AuditEventType.COMMIT_REJECTED.wireName().equals(type)) {
				String[] pointAndReason = pointAndReason(event);
				byPoint.computeIfAbsent(pointAndReason[0], (k) -> new TreeMap<>())
					.merge(pointAndReason[1], 1, Integer::sum);
				String at = event.getOrDefault("backend_time", "");
				lastAt.merge(pointAndReason[0], at, (a, b) -> (a.compareTo(b) >= 0) ? a : b);
			}
			else if (AuditEventType.EXPIRE.wireName().equals(type)) {
				lost.add(event);
			}
		}
		for (Map<String, String> event : read.admin()) {
			// a loss names its lease (a recovery's request event names only the program: its leases have their own)
			if (inScope(grant, event) && LOSS_CODES.contains(event.get("result_code"))
					&& !event.getOrDefault("lease_id", "").isEmpty()) {
				lost.add(event);
			}
		}
		lost.sort(NEWEST_FIRST);
		ObjectNode body = head("fencing_health_reported", correlationId);
		body.put("stream_available", read.available());
		ObjectNode scanned = body.putObject("scanned");
		scanned.put("admin", read.admin().size());
		scanned.put("routine", read.routine().size());
		ArrayNode points = body.putArray("rejected_commits");
		byPoint.forEach((point, reasons) -> {
			ObjectNode node = points.addObject();
			node.put("enforcement_point", point);
			node.put("count", reasons.values().stream().mapToInt(Integer::intValue).sum());
			node.put("last_at", lastAt.get(point));
			ObjectNode counts = node.putObject("reasons");
			reasons.forEach(counts::put);
		});
		ArrayNode losses_ = body.putArray("lease_losses");
		for (Map<String, String> event : lost.subList(0, Math.min(losses, lost.size()))) {
			losses_.add(event(event));
		}
		return MAPPER.writeValueAsString(body);
	}

	/** {@code point:reason} of a commit rejection; the store's own rejections name the result's reason. */
	static String[] pointAndReason(Map<String, String> event) {
		String reason = event.get("reason");
		if (reason == null || reason.isEmpty()) {
			return new String[] { DEFAULT_ENFORCEMENT_POINT, event.getOrDefault("result_code", "unknown") };
		}
		int colon = reason.indexOf(':');
		return (colon > 0) ? new String[] { reason.substring(0, colon), reason.substring(colon + 1) }
				: new String[] { DEFAULT_ENFORCEMENT_POINT, reason };
	}

	private static ObjectNode event(Map<String, String> event) {
		ObjectNode node = JsonNodeFactory.instance.objectNode();
		for (String field : EVENT_FIELDS) {
			String value = event.get(field);
			if (value != null) {
				node.put(field, value);
			}
		}
		return node;
	}

	/**
	 * Whether an event's program, actor and target lie inside the grant (the stream is per program already). An
	 * event without the field a restricted grant is scoped by (e.g. no {@code actor_name}) is outside it: it cannot be
	 * shown to a caller scoped to some actors or targets ({@code AdminGrant}'s sets reject {@code null} lookups).
	 */
	static boolean inScope(AdminGrant grant, Map<String, String> event) {
		String program = event.get("program_id");
		if (!grant.tenantId().equals(event.get("tenant_id")) || program == null || !grant.programs().contains(program)) {
			return false;
		}
		String actor = event.get("actor_name");
		if (!grant.actors().isEmpty() && (actor == null || !grant.actors().contains(actor))) {
			return false;
		}
		if (grant.targets().isEmpty()) {
			return true;
		}
		String namespace = event.get("target_namespace");
		String target = event.get("target_id");
		return namespace != null && target != null && grant.targets().contains(namespace + "/" + target);
	}

	private static final Comparator<Map<String, String>> NEWEST_FIRST = Comparator
		.comparing((Map<String, String> e) -> e.getOrDefault("backend_time", ""))
		.reversed();

}
