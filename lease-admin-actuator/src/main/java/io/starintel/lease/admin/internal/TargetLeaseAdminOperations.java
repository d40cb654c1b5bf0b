package io.starintel.lease.admin.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.starintel.lease.admin.AdminCaller;
import io.starintel.lease.admin.AdminGrant;
import io.starintel.lease.admin.AdminProperties;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.core.ActivePrograms;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.PropertyProblems;
import io.starintel.lease.http.internal.AdapterPropertiesCheck;
import io.starintel.lease.http.internal.TenantAdmission;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.redis.RecoveryReport;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.jspecify.annotations.Nullable;

/**
 * The admin operations behind the HTTP adapter: each parses its request ({@link AdminRequestParser}), is
 * authenticated, authorized and admitted ({@link AdminAuthorization}), calls the audited store once and maps the
 * typed result to the contract's envelope.
 *
 * <p>Order of checks (contract): 401 {@code invalid_credential} before any lease access; 400
 * {@code invalid_lease_request} for malformed input (parsed first, so refusals can be audited with their scope); 403
 * {@code access_denied} for a missing capability or a list/admin scope mismatch; inspect outside the caller's scope
 * answers exactly like a missing lease (404 {@code lease_not_found}); 429 {@code lease_rate_limited} from per-tenant
 * admission control; then the store decides at backend time. Force-release and revoke need an administrator
 * credential, the capability and a reason (revoke: incident id or reason), and compare against the observed active
 * lease ({@code lease_id} + {@code fencing_token}); they are idempotent by the body's {@code request_id}. Every
 * request is audited, including those refused before the store.
 */
public final class TargetLeaseAdminOperations {

	private final LeaseService service;

	private final AdminRequestParser parser;

	private final AdminAuthorization authorization;

	private final @Nullable LeaseStore store;

	private DocumentFenceRecovery documentRecovery = DocumentFenceRecovery.NONE;

	/**
	 * Operations over the lease service.
	 * @param service the lease service: the one audited, observed, exception-mapped store
	 * @param caller the current caller
	 * @param admission per-tenant admission control
	 * @param properties endpoint settings
	 * @param policy the lease policy: the only bounds of deadlines and page sizes
	 * @param operationClasses the closed operation-class set
	 * @param auditor audit of requests refused before the store
	 */
	public TargetLeaseAdminOperations(LeaseService service, AdminCaller caller, TenantAdmission admission,
			AdminProperties properties, LeasePolicy policy, OperationClasses operationClasses, AdminAuditor auditor) {
		this(service, null, caller, admission, properties, policy, operationClasses, auditor);
	}

	/**
	 * Operations over the lease service, with recovery when the lease store is (or decorates) the Redis store.
	 * @param service the lease service: the one audited, observed, exception-mapped store
	 * @param store the lease store bean (recovery finds the Redis store behind it), or {@code null}
	 * @param caller the current caller
	 * @param admission per-tenant admission control
	 * @param properties endpoint settings
	 * @param policy the lease policy: the only bounds of deadlines and page sizes
	 * @param operationClasses the closed operation-class set
	 * @param auditor audit of requests refused before the store, and of recoveries
	 */
	public TargetLeaseAdminOperations(LeaseService service, @Nullable LeaseStore store, AdminCaller caller,
			TenantAdmission admission, AdminProperties properties, LeasePolicy policy,
			OperationClasses operationClasses, AdminAuditor auditor) {
		checkAgainst(properties, policy);
		this.service = service;
		this.store = store;
		this.parser = new AdminRequestParser(properties, policy, operationClasses, auditor.clock());
		this.authorization = new AdminAuthorization(caller, admission, auditor);
	}

	/**
	 * Checks the endpoint's default deadline against the lease policy (its own bounds are checked when the properties
	 * bind): beyond the policy's maximum deadline, every request without {@code deadline_at} would be refused.
	 * @throws io.starintel.lease.core.LeaseConfigurationException naming the property
	 */
	static void checkAgainst(AdminProperties properties, LeasePolicy policy) {
		PropertyProblems problems = new PropertyProblems("starintel.lease.admin.");
		AdapterPropertiesCheck.checkAgainst(problems, properties.defaultDeadline(), policy);
		problems.throwIfAny("Set starintel.lease.admin.default-deadline within starintel.lease.request.maximum-deadline; "
				+ "see docs/admin.md, \"Properties\".");
	}

	/**
	 * A request refused by the HTTP adapter before it reached an operation (wrong content type, oversized body,
	 * undecodable query, unknown path or method, unexpected failure): audited with the caller when one is
	 * authenticated, never with a scope (none was parsed).
	 */
	public AdminResponse refused(AuditEventType type, ResultCode code, String correlationId, @Nullable String detail) {
		return this.authorization.refused(type, code, correlationId, detail);
	}

	/** list by program, owner or target: {@code GET .../targetleases?tenant_id&program_id[&owner_principal_id|&target_namespace&target_id][&cursor][&page_size]}. */
	public AdminResponse list(Map<String, String[]> params, String correlationId) {
		AdminAuthorization.Call call = this.authorization.call(AuditEventType.LIST, correlationId);
		return call.run(() -> {
			AdminRequestParser.ListQuery query = this.parser.list(params, call);
			AdminResponse denied = call.check(AdminCapability.READ, call.grant().allows(query.scope()),
					ResultCode.ACCESS_DENIED);
			if (denied != null) {
				return denied;
			}
			return call.admitted(() -> {
				LeasePage page = this.service.list(new ListRequest(query.filter(), query.cursor(), query.pageSize(),
						correlationId, query.deadline()));
				if (page.code() != ResultCode.LEASE_LISTED) {
					// the parser checked every other input: a list the store calls invalid has a cursor it did not
					// issue for this list (altered, expired, or another program's or filter's)
					String detail = (page.code() == ResultCode.INVALID_LEASE_REQUEST && query.cursor() != null)
							? "cursor: not a cursor of this list" : null;
					return AdminResponse.error(page.code(), correlationId, 0, detail);
				}
				List<LeaseRecord> visible = new ArrayList<>();
				for (LeaseRecord lease : page.leases()) {
					if (call.grant().allows(lease.identity())) {
						visible.add(lease);
					}
				}
				return new AdminResponse(200, AdminEnvelope.page(correlationId, visible, page.nextCursor(), true), 0);
			});
		});
	}

	/** inspect by lease id within the caller's scope: {@code GET .../targetleases/{lease_id}?tenant_id&program_id}. */
	public AdminResponse inspectByLeaseId(String leaseId, Map<String, String[]> params, String correlationId) {
		AdminAuthorization.Call call = this.authorization.call(AuditEventType.INSPECT, correlationId);
		return call.run(() -> {
			AdminRequestParser.LeaseIdQuery query = this.parser.leaseId(leaseId, params, call);
			AdminResponse denied = call.check(AdminCapability.READ, call.grant().allows(query.scope()),
					ResultCode.LEASE_NOT_FOUND);
			if (denied != null) {
				return denied;
			}
			return call.admitted(() -> inspected(call, this.service
				.inspect(InspectRequest.byLeaseId(query.scope(), query.leaseId(), correlationId, query.deadline()))));
		});
	}

	/** inspect by canonical identity: {@code POST .../targetleases/inspect {"lock_identity": {...}}}. */
	public AdminResponse inspectByIdentity(byte[] body, String correlationId) {
		AdminAuthorization.Call call = this.authorization.call(AuditEventType.INSPECT, correlationId);
		return call.run(() -> {
			AdminRequestParser.IdentityQuery query = this.parser.identity(body, call);
			AdminResponse denied = call.check(AdminCapability.READ, call.grant().allows(query.identity()),
					ResultCode.LEASE_NOT_FOUND);
			if (denied != null) {
				return denied;
			}
			return call.admitted(() -> inspected(call, this.service
				.inspect(InspectRequest.byIdentity(query.identity(), correlationId, query.deadline()))));
		});
	}

	private static AdminResponse inspected(AdminAuthorization.Call call, LeaseResult result) {
		if (result.isSuccess() && result.lease() != null && !call.grant().allows(result.lease().identity())) {
			// contract: an out-of-scope lease is indistinguishable from a missing one
			return AdminResponse.error(ResultCode.LEASE_NOT_FOUND, call.correlationId(), 0, null);
		}
		return result(result, call.correlationId(), true);
	}

	/** force-release: {@code POST .../targetleases/force-release} (administrator, reason required). */
	public AdminResponse forceRelease(byte[] body, String correlationId) {
		return administer(Operation.FORCE_RELEASE, AuditEventType.FORCE_RELEASE, AdminCapability.FORCE_RELEASE, body,
				correlationId);
	}

	/** revoke: {@code POST .../targetleases/revoke} (administrator, incident id or reason required). */
	public AdminResponse revoke(byte[] body, String correlationId) {
		return administer(Operation.REVOKE, AuditEventType.REVOKE, AdminCapability.REVOKE, body, correlationId);
	}

	/**
	 * recover: {@code POST .../targetleases/recover} (administrator with {@code targets:revoke}, reason required).
	 * Revokes every active lease of one program ({@code tenant_id}, {@code program_id}: the grant must allow the
	 * program without actor or target restriction), or of every program promoted on one cluster primary
	 * ({@code node}) or on every primary ({@code all_nodes: true}): node-wide recovery crosses tenants, so it needs a
	 * grant without actor or target restriction and is meant for the cluster's operators. Needs the Redis store (400
	 * otherwise); an incomplete recovery is 503 {@code lease_backend_unavailable} (run it again). The store writes
	 * one audit event per revoked lease; the request itself gets one event with the code answered.
	 */
	public AdminResponse recover(byte[] body, String correlationId) {
		AdminAuthorization.Call call = this.authorization.call(AuditEventType.REVOKE, correlationId);
		return call.run(() -> {
			AdminRequestParser.RecoverQuery query = this.parser.recover(body, call);
			AdminGrant grant = call.grant();
			ProgramScope scope = query.scope();
			boolean unrestricted = grant.actors().isEmpty() && grant.targets().isEmpty();
			AdminResponse denied = call.check(AdminCapability.REVOKE,
					unrestricted && (scope == null || grant.allows(scope)), ResultCode.ACCESS_DENIED);
			if (denied != null) {
				return denied;
			}
			RedisLeaseStore redis = (this.store != null) ? this.store.unwrap(RedisLeaseStore.class).orElse(null)
					: null;
			if (redis == null) {
				call.audit(ResultCode.INVALID_LEASE_REQUEST);
				return AdminResponse.error(ResultCode.INVALID_LEASE_REQUEST, correlationId, 0,
						"recovery needs the Redis store");
			}
			return call.admitted(() -> {
				AdminResponse response;
				try {
					// one decision: the store's per-lease entries and this request's event share its ids
					response = call.decided(() -> recover(redis, query, grant, correlationId));
				}
				catch (InvalidLeaseRequestException ex) {
					throw ex;
				}
				catch (RuntimeException ex) {
					// the store's recovery is not behind the service's exception mapping: answered (and audited) here
					response = AdminResponse.error(ResultCode.LEASE_BACKEND_UNAVAILABLE, correlationId, 0, null);
				}
				call.audit(switch (response.status()) {
					case 200 -> ResultCode.LEASE_REVOKED;
					case 400 -> ResultCode.INVALID_LEASE_REQUEST;
					default -> ResultCode.LEASE_BACKEND_UNAVAILABLE;
				});
				return response;
			});
		});
	}

	/** The forged-fence recovery of CouchDB documents ({@link #recoverDocument}); none by default. */
	public void setDocumentRecovery(DocumentFenceRecovery documentRecovery) {
		this.documentRecovery = java.util.Objects.requireNonNull(documentRecovery, "documentRecovery");
	}

	/**
	 * {@code POST .../targetleases/recover-document}: repairs a fenced CouchDB document whose fence was forged (a
	 * token above anything the lease store issued blocks its legitimate holder), with the same authority as a
	 * program recovery (an administrator with {@code targets:revoke} and no actor or target restriction, in scope
	 * for the program) and a reason. {@code 200 lease_revoked} with {@code document_recovery} when the forged fence
	 * was replaced; {@code 400} when there is nothing to recover (the fence is not forged, the document is not
	 * fenced, its identity never had a lease) or no recovery is configured; {@code 404} for a missing document;
	 * {@code 409 lease_conflict} when it changed meanwhile; {@code 503} when CouchDB or Redis did not answer or
	 * CouchDB refused the recovery user. One durable audit event with the code answered and the reason.
	 */
	public AdminResponse recoverDocument(byte[] body, String correlationId) {
		AdminAuthorization.Call call = this.authorization.call(AuditEventType.REVOKE, correlationId);
		return call.run(() -> {
			AdminRequestParser.RecoverDocumentQuery query = this.parser.recoverDocument(body, call);
			AdminGrant grant = call.grant();
			boolean unrestricted = grant.actors().isEmpty() && grant.targets().isEmpty();
			AdminResponse denied = call.check(AdminCapability.REVOKE, unrestricted && grant.allows(query.scope()),
					ResultCode.ACCESS_DENIED);
			if (denied != null) {
				return denied;
			}
			return call.admitted(() -> {
				DocumentFenceRecovery.Outcome outcome;
				try {
					outcome = this.documentRecovery.recover(query.scope(), query.documentId(), correlationId);
				}
				catch (RuntimeException ex) {
					outcome = new DocumentFenceRecovery.Outcome("backend_unavailable", 0, 0, null);
				}
				ResultCode code = documentRecoveryCode(outcome);
				call.audit(code);
				if (code == ResultCode.LEASE_REVOKED) {
					return new AdminResponse(200,
							AdminEnvelope.documentRecovered(correlationId, query.scope(), outcome), 0);
				}
				String detail = (outcome == null)
						? "document recovery needs starintel.lease.fence.couchdb.recovery.username"
						: (code == ResultCode.INVALID_LEASE_REQUEST)
								? "document_id: " + outcome.status().replace('_', ' ') : null;
				return AdminResponse.error(code, correlationId, 0, detail);
			});
		});
	}

	/** The answer of a document recovery's outcome ({@code null}: no recovery configured). */
	private static ResultCode documentRecoveryCode(DocumentFenceRecovery.@Nullable Outcome outcome) {
		if (outcome == null) {
			return ResultCode.INVALID_LEASE_REQUEST;
		}
		return switch (outcome.status()) {
			case "recovered" -> ResultCode.LEASE_REVOKED;
			case "not_forged", "not_fenced", "unknown_identity" -> ResultCode.INVALID_LEASE_REQUEST;
			case "not_found" -> ResultCode.LEASE_NOT_FOUND;
			case "conflict" -> ResultCode.LEASE_CONFLICT;
			case "outcome_unknown" -> ResultCode.LEASE_OUTCOME_UNKNOWN;
			default -> ResultCode.LEASE_BACKEND_UNAVAILABLE;
		};
	}

	private static AdminResponse recover(RedisLeaseStore redis, AdminRequestParser.RecoverQuery query,
			AdminGrant grant, String correlationId) {
		ProgramScope scope = query.scope();
		if (scope != null) {
			long revoked = redis.recoverProgram(scope, grant.principalId(), grant.credentialId(), query.reason(),
					query.deadline());
			return (revoked >= 0) ? new AdminResponse(200, AdminEnvelope.recovered(correlationId, scope, revoked), 0)
					: AdminResponse.error(ResultCode.LEASE_BACKEND_UNAVAILABLE, correlationId, 0, null);
		}
		RecoveryReport report = redis.recoverPromotedPrograms(query.node(), grant.principalId(), grant.credentialId(),
				query.reason(), query.deadline());
		if (report.complete()) {
			return new AdminResponse(200, AdminEnvelope.recovered(correlationId, query.node(), report), 0);
		}
		if (query.node() != null && report.nodes() == 0 && deploymentAnswers(redis, query.deadline())) {
			// no primary the store reaches is named so, while the deployment answers: the same request can never
			// succeed (on standalone and Sentinel the one primary has no node name: all_nodes recovers it)
			return AdminResponse.error(ResultCode.INVALID_LEASE_REQUEST, correlationId, 0,
					"node: not a primary of the deployment");
		}
		return AdminResponse.error(ResultCode.LEASE_BACKEND_UNAVAILABLE, correlationId, 0, null);
	}

	/**
	 * Whether the deployment answers now: one bounded read of the store's program registry (the same call the expiry
	 * sweeper makes). A named node that matched no primary is then not a primary at all; otherwise the store could
	 * not tell (its primaries did not answer) and the recovery stays 503, retryable.
	 */
	private static boolean deploymentAnswers(RedisLeaseStore redis, Instant deadline) {
		try {
			return redis.activePrograms(1, deadline).status() == ActivePrograms.Status.LISTED;
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	private AdminResponse administer(Operation operation, AuditEventType type, String capability, byte[] body,
			String correlationId) {
		AdminAuthorization.Call call = this.authorization.call(type, correlationId);
		return call.run(() -> {
			AdminRequest request = this.parser.administer(operation, body, call);
			AdminResponse denied = call.check(capability, call.grant().allows(request.identity()),
					ResultCode.ACCESS_DENIED);
			if (denied != null) {
				return denied;
			}
			return call.admitted(() -> result(
					(operation == Operation.REVOKE) ? this.service.revoke(request) : this.service.forceRelease(request),
					correlationId, false));
		});
	}

	private static AdminResponse result(LeaseResult result, String correlationId, boolean holder) {
		if (result.isSuccess() && result.lease() != null) {
			return new AdminResponse(200, AdminEnvelope.success(result.code(), correlationId, result.lease(), holder), 0);
		}
		String detail = (result.code() == ResultCode.INVALID_LEASE_REQUEST) ? result.detail() : null;
		long retryAfter = result.code().retryable() ? Math.max(0, result.retryAfterMs()) : 0;
		ResultCode code = result.isSuccess() ? ResultCode.LEASE_OUTCOME_UNKNOWN : result.code();
		return AdminResponse.error(code, correlationId, retryAfter, detail);
	}

}
