package io.starintel.lease.admin;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import io.starintel.lease.audit.AuditContext;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventBuilder;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.LeaseStore;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.ObjectNode;

/**
 * The admin operations behind the HTTP adapter: authorization, canonical parsing, admission control, the audited
 * store call and the mapping of typed results to the contract's envelopes.
 *
 * <p>Order of checks (contract): 401 {@code invalid_credential} before any lease access; 400
 * {@code invalid_lease_request} for malformed input (parsed first, so refusals can be audited with their scope); 403
 * {@code access_denied} for a missing capability or a list/admin scope mismatch; inspect outside the caller's scope answers exactly like a missing lease (404 {@code lease_not_found}); 429
 * {@code lease_rate_limited} from per-tenant admission control; then the store decides at backend time. Force-release
 * and revoke need an administrator credential, the capability and a reason (revoke: incident id or reason), and
 * compare against the observed active lease ({@code lease_id} + {@code fencing_token}); they are idempotent by the
 * body's {@code request_id}. Every request is audited, including those refused before the store.
 */
public final class TargetLeaseAdminOperations {

	private static final Set<String> LIST_PARAMS = Set.of("tenant_id", "program_id", "owner_principal_id",
			"target_namespace", "target_id", "cursor", "page_size", "deadline_at");

	private static final Set<String> INSPECT_PARAMS = Set.of("tenant_id", "program_id", "deadline_at");

	private static final Set<String> INSPECT_BODY = Set.of("lock_identity", "deadline_at");

	private static final Set<String> FORCE_RELEASE_BODY = Set.of("request_id", "lock_identity", "lease_id",
			"fencing_token", "reason", "deadline_at");

	private static final Set<String> REVOKE_BODY = Set.of("request_id", "lock_identity", "lease_id", "fencing_token",
			"reason", "incident_id", "deadline_at");

	private final LeaseStore store;

	private final AdminCaller caller;

	private final TenantAdmissionControl admission;

	private final AdminProperties properties;

	private final OperationClasses operationClasses;

	private final LeasePolicy policy;

	private final AdminAuditor auditor;

	private final Clock clock;

	/**
	 * Operations over the facade's audited store.
	 * @param store {@code LeaseService.operations()}: the one audited, observed, exception-mapped store
	 * @param caller the current caller
	 * @param admission per-tenant admission control
	 * @param properties endpoint settings
	 * @param policy the lease policy: the only bounds of deadlines and page sizes
	 * @param operationClasses the closed operation-class set
	 * @param auditor audit of requests refused before the store
	 */
	public TargetLeaseAdminOperations(LeaseStore store, AdminCaller caller, TenantAdmissionControl admission,
			AdminProperties properties, LeasePolicy policy, OperationClasses operationClasses, AdminAuditor auditor) {
		this.store = store;
		this.caller = caller;
		this.admission = admission;
		this.properties = properties;
		this.policy = policy;
		this.operationClasses = operationClasses;
		this.auditor = auditor;
		this.clock = auditor.clock();
	}

	/**
	 * A request refused by the HTTP adapter before it reached an operation (wrong content type, oversized body,
	 * undecodable query, unknown path or method, unexpected failure): audited with the caller when one is
	 * authenticated, never with a scope (none was parsed).
	 */
	public AdminResponse refused(AuditEventType type, ResultCode code, String correlationId, @Nullable String detail) {
		AuditEventBuilder event = AuditEvent.builder(type, code)
			.time(this.clock.instant(), this.clock.instant())
			.ids(null, correlationId);
		AdminGrant grant = this.caller.current();
		if (grant != null) {
			event.principal(principalClass(grant), grant.principalId(), grant.credentialId(), null);
		}
		this.auditor.record(event.build(), false);
		return AdminResponse.error(code, correlationId, 0, detail);
	}

	/** list by program, owner or target: {@code GET .../targetleases?tenant_id&program_id[&owner_principal_id|&target_namespace&target_id][&cursor][&page_size]}. */
	public AdminResponse list(Map<String, String[]> params, String correlationId) {
		Call call = new Call(AuditEventType.LIST, correlationId);
		return call.run(() -> {
			Map<String, String> p = single(params, LIST_PARAMS);
			ProgramScope scope = ProgramScope.of(require(p, "tenant_id"), require(p, "program_id"));
			call.scope = scope;
			ListFilter filter = filter(scope, p);
			int pageSize = pageSize(p.get("page_size"));
			String cursor = p.get("cursor");
			if (cursor != null && (cursor.isEmpty() || cursor.length() > ListRequest.MAX_CURSOR_LENGTH)) {
				throw new InvalidLeaseRequestException("cursor", "malformed");
			}
			Instant deadline = deadline(p.get("deadline_at"));
			AdminResponse denied = call.check(Capabilities.READ, call.grant.allows(scope),
					ResultCode.ACCESS_DENIED);
			if (denied != null) {
				return denied;
			}
			return call.admitted(() -> {
				LeasePage page = this.store.list(new ListRequest(filter, cursor, pageSize, correlationId, deadline));
				if (page.code() != ResultCode.LEASE_LISTED) {
					return AdminResponse.error(page.code(), correlationId, 0, null);
				}
				List<LeaseRecord> visible = new ArrayList<>();
				for (LeaseRecord lease : page.leases()) {
					if (call.grant.allows(lease.identity())) {
						visible.add(lease);
					}
				}
				return new AdminResponse(200, Envelopes.page(correlationId, visible, page.nextCursor(), true), 0);
			});
		});
	}

	/** inspect by lease id within the caller's scope: {@code GET .../targetleases/{lease_id}?tenant_id&program_id}. */
	public AdminResponse inspectByLeaseId(String leaseId, Map<String, String[]> params, String correlationId) {
		Call call = new Call(AuditEventType.INSPECT, correlationId);
		return call.run(() -> {
			Map<String, String> p = single(params, INSPECT_PARAMS);
			ProgramScope scope = ProgramScope.of(require(p, "tenant_id"), require(p, "program_id"));
			call.scope = scope;
			Identifiers.require("lease_id", leaseId);
			Instant deadline = deadline(p.get("deadline_at"));
			AdminResponse denied = call.check(Capabilities.READ, call.grant.allows(scope),
					ResultCode.LEASE_NOT_FOUND);
			if (denied != null) {
				return denied;
			}
			return call.admitted(() -> inspected(call,
					this.store.inspect(InspectRequest.byLeaseId(scope, leaseId, correlationId, deadline))));
		});
	}

	/** inspect by canonical identity: {@code POST .../targetleases/inspect {"lock_identity": {...}}}. */
	public AdminResponse inspectByIdentity(byte[] body, String correlationId) {
		Call call = new Call(AuditEventType.INSPECT, correlationId);
		return call.run(() -> {
			ObjectNode json = AdminJson.object(body, INSPECT_BODY);
			LockIdentity identity = AdminJson.identity(json, this.operationClasses);
			call.identity = identity;
			Instant deadline = deadline(AdminJson.string(json, "deadline_at", false));
			AdminResponse denied = call.check(Capabilities.READ, call.grant.allows(identity),
					ResultCode.LEASE_NOT_FOUND);
			if (denied != null) {
				return denied;
			}
			return call.admitted(
					() -> inspected(call, this.store.inspect(InspectRequest.byIdentity(identity, correlationId, deadline))));
		});
	}

	private AdminResponse inspected(Call call, LeaseResult result) {
		if (result.isSuccess() && result.lease() != null && !call.grant.allows(result.lease().identity())) {
			// contract: an out-of-scope lease is indistinguishable from a missing one
			return AdminResponse.error(ResultCode.LEASE_NOT_FOUND, call.correlationId, 0, null);
		}
		return result(result, call.correlationId, true);
	}

	/** force-release: {@code POST .../targetleases/force-release} (administrator, reason required). */
	public AdminResponse forceRelease(byte[] body, String correlationId) {
		return administer(Operation.FORCE_RELEASE, AuditEventType.FORCE_RELEASE, Capabilities.FORCE_RELEASE,
				FORCE_RELEASE_BODY, body, correlationId);
	}

	/** revoke: {@code POST .../targetleases/revoke} (administrator, incident id or reason required). */
	public AdminResponse revoke(byte[] body, String correlationId) {
		return administer(Operation.REVOKE, AuditEventType.REVOKE, Capabilities.REVOKE, REVOKE_BODY, body,
				correlationId);
	}

	private AdminResponse administer(Operation operation, AuditEventType type, String capability, Set<String> fields,
			byte[] body, String correlationId) {
		Call call = new Call(type, correlationId);
		return call.run(() -> {
			ObjectNode json = AdminJson.object(body, fields);
			String requestId = Identifiers.require("request_id", AdminJson.string(json, "request_id", true));
			call.requestId = requestId;
			LockIdentity identity = AdminJson.identity(json, this.operationClasses);
			call.identity = identity;
			String leaseId = Identifiers.require("lease_id", AdminJson.string(json, "lease_id", true));
			long token = AdminJson.integer(json, "fencing_token");
			String reason = reason(operation, json);
			Instant deadline = deadline(AdminJson.string(json, "deadline_at", false));
			AdminRequest request = new AdminRequest(operation, identity, requestId, deadline, leaseId, token,
					call.grant.principalId(), call.grant.credentialId(), reason);
			AdminResponse denied = call.check(capability, call.grant.allows(identity),
					ResultCode.ACCESS_DENIED);
			if (denied != null) {
				return denied;
			}
			return call.admitted(() -> result(
					(operation == Operation.REVOKE) ? this.store.revoke(request) : this.store.forceRelease(request),
					correlationId, false));
		});
	}

	private static String reason(Operation operation, ObjectNode json) {
		String reason = AdminJson.string(json, "reason", operation == Operation.FORCE_RELEASE);
		if (operation == Operation.FORCE_RELEASE) {
			return reason;
		}
		String incident = AdminJson.string(json, "incident_id", false);
		if (incident == null) {
			if (reason == null) {
				throw new InvalidLeaseRequestException("reason", "incident_id or reason required");
			}
			return reason;
		}
		Identifiers.require("incident_id", incident);
		return "incident_id=" + incident + ((reason != null) ? " " + reason : "");
	}

	private static AdminResponse result(LeaseResult result, String correlationId, boolean holder) {
		if (result.isSuccess() && result.lease() != null) {
			return new AdminResponse(200, Envelopes.success(result.code(), correlationId, result.lease(), holder), 0);
		}
		String detail = (result.code() == ResultCode.INVALID_LEASE_REQUEST) ? result.detail() : null;
		long retryAfter = result.code().retryable() ? Math.max(0, result.retryAfterMs()) : 0;
		ResultCode code = result.isSuccess() ? ResultCode.LEASE_OUTCOME_UNKNOWN : result.code();
		return AdminResponse.error(code, correlationId, retryAfter, detail);
	}

	private ListFilter filter(ProgramScope scope, Map<String, String> p) {
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

	private Instant deadline(@Nullable String text) {
		Instant now = this.clock.instant();
		if (text == null) {
			return now.plus(this.properties.getDefaultDeadline());
		}
		Instant deadline = AdminJson.instant("deadline_at", text);
		this.policy.checkDeadline(deadline, now);
		return deadline;
	}

	private static Map<String, String> single(Map<String, String[]> params, Set<String> allowed) {
		Map<String, String> values = new java.util.HashMap<>();
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

	/** One request: its caller, what was parsed so far (for the audit of refusals) and the common checks. */
	private final class Call {

		private final AuditEventType type;

		private final String correlationId;

		private final Instant started;

		private AdminGrant grant;

		private @Nullable ProgramScope scope;

		private @Nullable LockIdentity identity;

		private @Nullable String requestId;

		Call(AuditEventType type, String correlationId) {
			this.type = type;
			this.correlationId = correlationId;
			this.started = TargetLeaseAdminOperations.this.clock.instant();
		}

		AdminResponse run(Supplier<AdminResponse> body) {
			AdminGrant current = TargetLeaseAdminOperations.this.caller.current();
			if (current == null) {
				return deny(ResultCode.INVALID_CREDENTIAL);
			}
			this.grant = current;
			try {
				return body.get();
			}
			catch (InvalidLeaseRequestException ex) {
				audit(ResultCode.INVALID_LEASE_REQUEST);
				return AdminResponse.error(ResultCode.INVALID_LEASE_REQUEST, this.correlationId, 0, ex.getMessage());
			}
		}

		AdminResponse admitted(Supplier<AdminResponse> operation) {
			String tenant = (this.identity != null) ? this.identity.tenantId() : this.scope.tenantId();
			try (TenantAdmissionControl.Admission admission = TargetLeaseAdminOperations.this.admission.admit(tenant)) {
				if (!admission.admitted()) {
					audit(ResultCode.LEASE_RATE_LIMITED);
					return AdminResponse.error(ResultCode.LEASE_RATE_LIMITED, this.correlationId,
							admission.retryAfterMs(), null);
				}
				AuditContext context = new AuditContext(this.correlationId, principalClass(this.grant),
						this.grant.principalId(), this.grant.credentialId());
				// the audited store writes this request's event
				AdminRequestAudit.markAudited();
				return context.run(operation);
			}
		}

		/**
		 * After parsing: the capability (403 {@code access_denied}), then the scope ({@code outOfScope}: 403 for
		 * list and admin operations, 404 for inspect); {@code null} when allowed.
		 */
		@Nullable AdminResponse check(String capability, boolean inScope, ResultCode outOfScope) {
			if (!this.grant.has(capability)) {
				return deny(ResultCode.ACCESS_DENIED);
			}
			return inScope ? null : deny(outOfScope);
		}

		AdminResponse deny(ResultCode code) {
			audit(code);
			return AdminResponse.error(code, this.correlationId, 0, null);
		}

		/** Audits a request refused before the store (contract: denied and rate-limited requests are audited too). */
		private void audit(ResultCode code) {
			AuditEventBuilder event = AuditEvent.builder(this.type, code)
				.time(TargetLeaseAdminOperations.this.clock.instant(), this.started)
				.ids(this.requestId, this.correlationId);
			if (this.grant != null) {
				event.principal(principalClass(this.grant), this.grant.principalId(), this.grant.credentialId(), null);
			}
			if (this.identity != null) {
				event.identity(this.identity);
			}
			else {
				event.scope(this.scope);
			}
			// the durable stream only for a program within the caller's scope: no streams for programs it may not see
			boolean inScope = this.grant != null && ((this.identity != null) ? this.grant.allows(this.identity)
					: this.scope != null && this.grant.allows(this.scope));
			TargetLeaseAdminOperations.this.auditor.record(event.build(), inScope);
		}

	}

	static PrincipalClass principalClass(AdminGrant grant) {
		switch (grant.kind()) {
			case ADMINISTRATOR:
				return PrincipalClass.ADMINISTRATOR;
			case WORKER:
				return PrincipalClass.WORKER;
			default:
				return PrincipalClass.OPERATOR;
		}
	}

}
