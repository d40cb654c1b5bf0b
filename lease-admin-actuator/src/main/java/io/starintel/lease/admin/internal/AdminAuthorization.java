package io.starintel.lease.admin.internal;

import java.time.Clock;
import java.time.Instant;
import java.util.function.Supplier;

import io.starintel.lease.admin.AdminCaller;
import io.starintel.lease.admin.AdminGrant;
import io.starintel.lease.audit.internal.AdminDecision;
import io.starintel.lease.audit.internal.AuditContext;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.internal.AuditEventBuilder;
import io.starintel.lease.audit.internal.AuditContext;
import io.starintel.lease.audit.internal.AuditEventBuilder;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.http.internal.TenantAdmission;
import org.jspecify.annotations.Nullable;

/**
 * Authentication, authorization and admission of admin requests, and the audit of every refusal taken before the
 * store.
 *
 * <p>Order (contract): 401 {@code invalid_credential} before any lease access; 400 {@code invalid_lease_request} for
 * malformed input (parsed first, so refusals are audited with their scope); 403 {@code access_denied} for a missing
 * capability or a list/admin scope mismatch (inspect outside the caller's scope answers like a missing lease, 404);
 * 429 {@code lease_rate_limited} from per-tenant admission control; then the audited store writes the request's event.
 */
final class AdminAuthorization {

	private final AdminCaller caller;

	private final TenantAdmission admission;

	private final AdminAuditor auditor;

	private final Clock clock;

	AdminAuthorization(AdminCaller caller, TenantAdmission admission, AdminAuditor auditor) {
		this.caller = caller;
		this.admission = admission;
		this.auditor = auditor;
		this.clock = auditor.clock();
	}

	/** The current caller's grant, or {@code null}. */
	@Nullable AdminGrant current() {
		return this.caller.current();
	}

	/** A new request of an operation. */
	Call call(AuditEventType type, String correlationId) {
		return new Call(type, correlationId);
	}

	/** One request: its caller, what was parsed so far (for the audit of refusals) and the common checks. */
	final class Call {

		private final AuditEventType type;

		private final String correlationId;

		private final Instant started;

		private @Nullable AdminGrant grant;

		private @Nullable ProgramScope scope;

		private @Nullable LockIdentity identity;

		private @Nullable String requestId;

		private @Nullable String reason;

		private @Nullable String decisionId;

		private @Nullable Instant deadline;

		private Call(AuditEventType type, String correlationId) {
			this.type = type;
			this.correlationId = correlationId;
			this.started = AdminAuthorization.this.clock.instant();
		}

		String correlationId() {
			return this.correlationId;
		}

		/** The authenticated caller's grant (only inside {@link #run}). */
		AdminGrant grant() {
			AdminGrant current = this.grant;
			if (current == null) {
				throw new IllegalStateException("no authenticated caller");
			}
			return current;
		}

		/** Records the parsed scope (audited with a refusal). */
		void scope(ProgramScope parsed) {
			this.scope = parsed;
		}

		/** Records the parsed identity (audited with a refusal). */
		void identity(LockIdentity parsed) {
			this.identity = parsed;
		}

		/** Records the administrator's reason (audited with the request's event). */
		void reason(String parsed) {
			this.reason = parsed;
		}

		/** Records the request's deadline: a synchronous audit write of this request waits at most until then. */
		void deadline(Instant parsed) {
			this.deadline = parsed;
		}

		/** Records the parsed request id (audited with a refusal). */
		void requestId(String parsed) {
			this.requestId = parsed;
		}

		/** 401 without a caller; the body's {@link InvalidLeaseRequestException} is 400, audited. */
		AdminResponse run(Supplier<AdminResponse> body) {
			AdminGrant current = AdminAuthorization.this.caller.current();
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

		/**
		 * Runs an operation whose store writes audit entries of its own (a recovery) as one admin decision of this
		 * request ({@link AdminDecision}: a new decision id, the correlation id, the request's start): the store's
		 * entries and the request's event ({@link #audit}) carry the same correlation and decision ids.
		 */
		<T> T decided(Supplier<T> operation) {
			AdminDecision decision = AdminDecision.begin(this.correlationId, this.started);
			this.decisionId = decision.decisionId();
			return decision.run(operation);
		}

		/** 429 when the tenant's admission refuses; otherwise the operation in the request's audit context. */
		AdminResponse admitted(Supplier<AdminResponse> operation) {
			LockIdentity parsedIdentity = this.identity;
			ProgramScope parsedScope = this.scope;
			String tenant = (parsedIdentity != null) ? parsedIdentity.tenantId()
					: (parsedScope != null) ? parsedScope.tenantId() : "";
			try (TenantAdmission.Permit permit = AdminAuthorization.this.admission.admit(tenant)) {
				if (!permit.admitted()) {
					audit(ResultCode.LEASE_RATE_LIMITED);
					return AdminResponse.error(ResultCode.LEASE_RATE_LIMITED, this.correlationId,
							permit.retryAfterMs(), null);
				}
				AdminGrant current = grant();
				AuditContext context = new AuditContext(this.correlationId, principalClass(current),
						current.principalId(), current.credentialId());
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
			if (!grant().has(capability)) {
				return deny(ResultCode.ACCESS_DENIED);
			}
			return inScope ? null : deny(outOfScope);
		}

		AdminResponse deny(ResultCode code) {
			audit(code);
			return AdminResponse.error(code, this.correlationId, 0, null);
		}

		/**
		 * Audits a request refused before the store (contract: denied and rate-limited requests are audited too), or
		 * the answer of an operation the audited store does not see (recovery).
		 */
		void audit(ResultCode code) {
			AuditEventBuilder event = new AuditEventBuilder(this.type, code)
				.time(AdminAuthorization.this.clock.instant(), this.started)
				.ids(this.requestId, this.correlationId);
			AdminGrant current = this.grant;
			if (current != null) {
				event.principal(principalClass(current), current.principalId(), current.credentialId(), null);
			}
			if (this.identity != null) {
				event.identity(this.identity);
			}
			else {
				event.scope(this.scope);
			}
			if (this.reason != null) {
				event.reason(this.reason);
			}
			event.decision(this.decisionId);
			// the durable stream only for a program within the caller's scope: no streams for programs it may not see
			boolean inScope = current != null && ((this.identity != null) ? current.allows(this.identity)
					: this.scope != null && current.allows(this.scope));
			AdminAuthorization.this.auditor.record(event.build(), inScope, this.deadline);
		}

	}

	/** A request refused by the HTTP adapter before it reached an operation (audited with the caller, no scope). */
	AdminResponse refused(AuditEventType type, ResultCode code, String correlationId, @Nullable String detail) {
		AuditEventBuilder event = new AuditEventBuilder(type, code)
			.time(this.clock.instant(), this.clock.instant())
			.ids(null, correlationId);
		AdminGrant grant = this.caller.current();
		if (grant != null) {
			event.principal(principalClass(grant), grant.principalId(), grant.credentialId(), null);
		}
		this.auditor.record(event.build(), false);
		return AdminResponse.error(code, correlationId, 0, detail);
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
