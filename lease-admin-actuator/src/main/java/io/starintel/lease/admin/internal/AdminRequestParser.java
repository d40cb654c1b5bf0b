package io.starintel.lease.admin.internal;

import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import io.starintel.lease.admin.AdminGrant;
import io.starintel.lease.admin.AdminProperties;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.internal.PlainText;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.http.internal.RequestDeadline;
import io.starintel.lease.http.internal.StrictJson;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Canonical parsing of admin requests (query parameters and strict JSON bodies). What is parsed is recorded on the
 * request's {@link AdminAuthorization.Call} as soon as it is known, so that a refusal of a later field is audited with
 * the scope or identity already read. Every failure is an {@link InvalidLeaseRequestException} naming the field and
 * rule, never the value.
 */
final class AdminRequestParser {

	private static final Set<String> LIST_PARAMS = Set.of("tenant_id", "program_id", "owner_principal_id",
			"target_namespace", "target_id", "cursor", "page_size", "deadline_at");

	private static final Set<String> INSPECT_PARAMS = Set.of("tenant_id", "program_id", "deadline_at");

	private static final Set<String> INSPECT_BODY = Set.of("lock_identity", "deadline_at");

	private static final Set<String> FORCE_RELEASE_BODY = Set.of("request_id", "lock_identity", "lease_id",
			"fencing_token", "reason", "deadline_at");

	private static final Set<String> REVOKE_BODY = Set.of("request_id", "lock_identity", "lease_id", "fencing_token",
			"reason", "incident_id", "deadline_at");

	private static final Set<String> RECOVER_BODY = Set.of("tenant_id", "program_id", "node", "all_nodes", "reason",
			"deadline_at");

	private static final Set<String> RECOVER_DOCUMENT_BODY = Set.of("tenant_id", "program_id", "document_id", "reason");

	/**
	 * A CouchDB document id a recovery may name: not a design or system document, no control characters (and
	 * {@link PlainText}'s rule).
	 */
	private static final Pattern DOCUMENT_ID = Pattern.compile("[^_\\p{Cntrl}][^\\p{Cntrl}]{0,511}");

	/** A cluster node as {@code host:port} (a host name, IPv4 or bracketed IPv6 address, and a port). */
	private static final Pattern NODE = Pattern
		.compile("(\\[[0-9A-Fa-f:.]{2,45}\\]|[A-Za-z0-9][A-Za-z0-9.-]{0,252}):[0-9]{1,5}");

	private static final Pattern DIGITS_AND_DOTS = Pattern.compile("[0-9.]+");

	private static final Pattern HOST_LABEL = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?");

	private static final Pattern HEX_GROUP = Pattern.compile("[0-9A-Fa-f]{1,4}");

	/** Fields of a lock identity object (an administrator names all of them). */
	private static final Set<String> IDENTITY_FIELDS = Set.copyOf(LockIdentity.COMPONENTS);

	private final AdminProperties properties;

	private final LeasePolicy policy;

	private final OperationClasses operationClasses;

	private final Clock clock;

	AdminRequestParser(AdminProperties properties, LeasePolicy policy, OperationClasses operationClasses,
			Clock clock) {
		this.properties = properties;
		this.policy = policy;
		this.operationClasses = operationClasses;
		this.clock = clock;
	}

	/** A list query: scope, filter, page size, cursor and deadline. */
	record ListQuery(ProgramScope scope, ListFilter filter, int pageSize, @Nullable String cursor, Instant deadline) {
	}

	/** An inspect-by-lease-id query. */
	record LeaseIdQuery(ProgramScope scope, String leaseId, Instant deadline) {
	}

	/** An inspect-by-identity body. */
	record IdentityQuery(LockIdentity identity, Instant deadline) {
	}

	/**
	 * A recovery: one program ({@code scope}), or the programs promoted on one node ({@code node}) or on every node
	 * (neither).
	 */
	record RecoverQuery(@Nullable ProgramScope scope, @Nullable String node, String reason, Instant deadline) {

		boolean nodeWide() {
			return this.scope == null;
		}

	}

	ListQuery list(Map<String, String[]> params, AdminAuthorization.Call call) {
		Map<String, String> p = single(params, LIST_PARAMS);
		ProgramScope scope = ProgramScope.of(require(p, "tenant_id"), require(p, "program_id"));
		call.scope(scope);
		ListFilter filter = filter(scope, p);
		int pageSize = pageSize(p.get("page_size"));
		String cursor = p.get("cursor");
		if (cursor != null && (cursor.isEmpty() || cursor.length() > ListRequest.MAX_CURSOR_LENGTH)) {
			throw new InvalidLeaseRequestException("cursor", "malformed");
		}
		return new ListQuery(scope, filter, pageSize, cursor, deadline(p.get("deadline_at"), call));
	}

	LeaseIdQuery leaseId(String leaseId, Map<String, String[]> params, AdminAuthorization.Call call) {
		Map<String, String> p = single(params, INSPECT_PARAMS);
		ProgramScope scope = ProgramScope.of(require(p, "tenant_id"), require(p, "program_id"));
		call.scope(scope);
		Identifiers.require("lease_id", leaseId);
		return new LeaseIdQuery(scope, leaseId, deadline(p.get("deadline_at"), call));
	}

	IdentityQuery identity(byte[] body, AdminAuthorization.Call call) {
		ObjectNode json = StrictJson.object(body, INSPECT_BODY);
		LockIdentity identity = identity(json);
		call.identity(identity);
		return new IdentityQuery(identity, deadline(StrictJson.string(json, "deadline_at", false), call));
	}

	/** A force-release or revoke body, as the store's request by the calling administrator. */
	AdminRequest administer(Operation operation, byte[] body, AdminAuthorization.Call call) {
		ObjectNode json = StrictJson.object(body, (operation == Operation.REVOKE) ? REVOKE_BODY : FORCE_RELEASE_BODY);
		String requestId = Identifiers.require("request_id", StrictJson.string(json, "request_id", true));
		call.requestId(requestId);
		LockIdentity identity = identity(json);
		call.identity(identity);
		String leaseId = Identifiers.require("lease_id", StrictJson.string(json, "lease_id", true));
		long token = StrictJson.requiredInteger(json, "fencing_token");
		String reason = reason(operation, json);
		Instant deadline = deadline(StrictJson.string(json, "deadline_at", false), call);
		AdminGrant grant = call.grant();
		return new AdminRequest(operation, identity, requestId, deadline, leaseId, token, grant.principalId(),
				grant.credentialId(), reason);
	}

	/**
	 * A recovery body: {@code tenant_id} and {@code program_id} (one program), or {@code node} ({@code host:port}),
	 * or {@code all_nodes: true}; exactly one of the three, and a {@code reason} (the rules of revoke's reason).
	 */
	RecoverQuery recover(byte[] body, AdminAuthorization.Call call) {
		ObjectNode json = StrictJson.object(body, RECOVER_BODY);
		String tenant = StrictJson.string(json, "tenant_id", false);
		String program = StrictJson.string(json, "program_id", false);
		String node = StrictJson.string(json, "node", false);
		boolean allNodes = allNodes(json);
		ProgramScope scope = null;
		if (tenant != null || program != null) {
			if (node != null || allNodes) {
				throw oneTarget();
			}
			scope = ProgramScope.of(requireField(tenant, "tenant_id"), requireField(program, "program_id"));
			call.scope(scope);
		}
		else if (node != null) {
			if (allNodes) {
				throw oneTarget();
			}
			if (!NODE.matcher(node).matches()) {
				throw new InvalidLeaseRequestException("node", "must be host:port");
			}
			int colon = node.lastIndexOf(':');
			if (!validPort(node.substring(colon + 1))) {
				throw new InvalidLeaseRequestException("node", "port must be 1-65535");
			}
			if (!validHost(node.substring(0, colon))) {
				throw new InvalidLeaseRequestException("node", "invalid host");
			}
		}
		else if (!allNodes) {
			throw oneTarget();
		}
		String reason = StrictJson.requiredString(json, "reason");
		AdminRequest.requireValidReason(reason);
		call.reason(reason);
		return new RecoverQuery(scope, node, reason, deadline(StrictJson.string(json, "deadline_at", false), call));
	}

	/** A forged-fence recovery of one CouchDB document: the program, the document id and the reason. */
	RecoverDocumentQuery recoverDocument(byte[] body, AdminAuthorization.Call call) {
		ObjectNode json = StrictJson.object(body, RECOVER_DOCUMENT_BODY);
		ProgramScope scope = ProgramScope.of(StrictJson.requiredString(json, "tenant_id"),
				StrictJson.requiredString(json, "program_id"));
		call.scope(scope);
		String documentId = StrictJson.requiredString(json, "document_id");
		if (!DOCUMENT_ID.matcher(documentId).matches() || !PlainText.isPlain(documentId)) {
			throw new InvalidLeaseRequestException("document_id", "1-512 characters, no control, format or line "
					+ "separator characters or unpaired surrogates, not a design or system document");
		}
		String reason = StrictJson.requiredString(json, "reason");
		AdminRequest.requireValidReason(reason);
		call.reason(reason);
		return new RecoverDocumentQuery(scope, documentId, reason);
	}

	/** What {@link #recoverDocument} parsed. */
	record RecoverDocumentQuery(ProgramScope scope, String documentId, String reason) {

	}

	private static boolean validPort(String digits) {
		int port = Integer.parseInt(digits); // 1-5 digits (NODE)
		return port >= 1 && port <= 65535;
	}

	/**
	 * A host as a cluster names its nodes: a bracketed IPv6 address, a dotted-quad IPv4 address (each part 0-255), or
	 * a host name of labels of 1-63 letters, digits and inner hyphens.
	 */
	static boolean validHost(String host) {
		if (host.startsWith("[")) {
			return validIpv6(host.substring(1, host.length() - 1));
		}
		if (DIGITS_AND_DOTS.matcher(host).matches()) {
			return validIpv4(host);
		}
		for (String label : host.split("\\.", -1)) {
			if (!HOST_LABEL.matcher(label).matches()) {
				return false;
			}
		}
		return true;
	}

	private static boolean validIpv4(String address) {
		String[] parts = address.split("\\.", -1);
		if (parts.length != 4) {
			return false;
		}
		for (String part : parts) {
			if (part.isEmpty() || part.length() > 3 || (part.length() > 1 && part.charAt(0) == '0')
					|| Integer.parseInt(part) > 255) {
				return false;
			}
		}
		return true;
	}

	private static boolean validIpv6(String address) {
		int gap = address.indexOf("::");
		if (gap >= 0 && address.indexOf("::", gap + 1) >= 0) {
			return false;
		}
		int groups = 0;
		String[] sides = (gap >= 0) ? new String[] { address.substring(0, gap), address.substring(gap + 2) }
				: new String[] { address };
		for (int side = 0; side < sides.length; side++) {
			if (sides[side].isEmpty()) {
				continue;
			}
			String[] parts = sides[side].split(":", -1);
			for (int i = 0; i < parts.length; i++) {
				boolean last = side == sides.length - 1 && i == parts.length - 1;
				if (last && parts[i].indexOf('.') >= 0) {
					if (!validIpv4(parts[i])) {
						return false;
					}
					groups += 2;
				}
				else if (HEX_GROUP.matcher(parts[i]).matches()) {
					groups++;
				}
				else {
					return false;
				}
			}
		}
		return (gap >= 0) ? groups < 8 : groups == 8;
	}

	private static InvalidLeaseRequestException oneTarget() {
		return new InvalidLeaseRequestException("body", "give one of tenant_id and program_id, node or all_nodes");
	}

	private static boolean allNodes(ObjectNode json) {
		JsonNode value = json.get("all_nodes");
		if (value == null || value.isNull()) {
			return false;
		}
		if (!value.isBoolean() || !value.booleanValue()) {
			throw new InvalidLeaseRequestException("all_nodes", "must be true when given");
		}
		return true;
	}

	private static String requireField(@Nullable String value, String name) {
		if (value == null) {
			throw new InvalidLeaseRequestException(name, "missing");
		}
		return value;
	}

	/** The {@code lock_identity} object, validated and normalized by lock-key v1. */
	private LockIdentity identity(ObjectNode node) {
		ObjectNode identity = StrictJson.object(node, "lock_identity", IDENTITY_FIELDS);
		return LockIdentity.of(this.operationClasses, StrictJson.string(identity, "tenant_id", true),
				StrictJson.string(identity, "program_id", true), StrictJson.string(identity, "target_namespace", true),
				StrictJson.string(identity, "target_id", true), StrictJson.string(identity, "actor_name", true),
				StrictJson.string(identity, "workflow_name", true),
				StrictJson.string(identity, "operation_class", false));
	}

	private static String reason(Operation operation, ObjectNode json) {
		String reason = StrictJson.string(json, "reason", operation == Operation.FORCE_RELEASE);
		if (operation == Operation.FORCE_RELEASE) {
			return reason;
		}
		String incident = StrictJson.string(json, "incident_id", false);
		if (incident == null) {
			if (reason == null) {
				throw new InvalidLeaseRequestException("reason", "incident_id or reason required");
			}
			return reason;
		}
		Identifiers.require("incident_id", incident);
		return "incident_id=" + incident + ((reason != null) ? " " + reason : "");
	}

	private static ListFilter filter(ProgramScope scope, Map<String, String> p) {
		String owner = p.get("owner_principal_id");
		String namespace = p.get("target_namespace");
		String target = p.get("target_id");
		if (owner != null && (namespace != null || target != null)) {
			throw new InvalidLeaseRequestException("filter", "give one of owner_principal_id or target");
		}
		if (owner != null) {
			return new ListFilter.ByOwner(scope, owner);
		}
		if (namespace != null || target != null) {
			return new ListFilter.ByTarget(scope, namespace, target);
		}
		return new ListFilter.ByProgram(scope);
	}

	private int pageSize(@Nullable String text) {
		if (text == null) {
			return this.policy.maximumPageSize();
		}
		if (text.isEmpty() || text.length() > 9 || !text.chars().allMatch(Character::isDigit)) {
			throw new InvalidLeaseRequestException("page_size", "must be a positive integer");
		}
		int size = Integer.parseInt(text);
		if (size <= 0) {
			throw new InvalidLeaseRequestException("page_size", "must be a positive integer");
		}
		return this.policy.pageSize(size);
	}

	/** The request's deadline ({@code deadline_at}, or the default), recorded on the call (its synchronous audit). */
	private Instant deadline(@Nullable String text, AdminAuthorization.Call call) {
		Instant deadline = RequestDeadline.parse(text, this.clock.instant(), this.properties.defaultDeadline(),
				this.policy, null);
		call.deadline(deadline);
		return deadline;
	}

	private static Map<String, String> single(Map<String, String[]> params, Set<String> allowed) {
		Map<String, String> values = new HashMap<>();
		for (Map.Entry<String, String[]> entry : params.entrySet()) {
			if (!allowed.contains(entry.getKey())) {
				throw new InvalidLeaseRequestException("query", "unknown parameter");
			}
			if (entry.getValue().length != 1) {
				throw new InvalidLeaseRequestException(entry.getKey(), "must be given once");
			}
			values.put(entry.getKey(), entry.getValue()[0]);
		}
		return values;
	}

	private static String require(Map<String, String> params, String name) {
		String value = params.get(name);
		if (value == null) {
			throw new InvalidLeaseRequestException(name, "missing");
		}
		return value;
	}

}
