package io.starintel.lease.core;

import java.util.List;
import java.util.function.UnaryOperator;

import org.jspecify.annotations.Nullable;

/**
 * The canonical lock identity: the ordered, normalized seven-component tuple of the contract.
 *
 * <p>Instances exist only in normalized form (lock-key v1): build them with
 * {@link #of(OperationClasses, String, String, String, String, String, String, String)}, which rejects any
 * non-canonical input with {@link InvalidLeaseRequestException} naming the component. Nothing is ever
 * truncated, trimmed or silently replaced.
 */
public record LockIdentity(String tenantId, String programId, String targetNamespace, String targetId,
		String actorName, String workflowName, String operationClass) {

	/** Key prefix of lock-key v1. */
	public static final String KEY_PREFIX = "starintel:target-lease:v1:";

	/** Names of the seven components, in canonical order. */
	public static final List<String> COMPONENTS = List.of("tenant_id", "program_id", "target_namespace", "target_id",
			"actor_name", "workflow_name", "operation_class");

	/** Record canonical constructor: only callable with already-normalized values (re-validated). */
	public LockIdentity {
		String[] raw = { tenantId, programId, targetNamespace, targetId, actorName, workflowName, operationClass };
		// operation-class membership is checked by of(); here it only has to be a canonical slug
		String[] normalized = normalizeAll(op -> IdentityRules.slug("operation_class", op), raw);
		for (int i = 0; i < raw.length; i++) {
			if (!normalized[i].equals(raw[i])) {
				throw new InvalidLeaseRequestException(COMPONENTS.get(i), "not in canonical form");
			}
		}
	}

	/**
	 * Validates and normalizes the seven raw components.
	 * @throws InvalidLeaseRequestException naming the first offending component
	 */
	public static LockIdentity of(OperationClasses operationClasses, String tenantId, String programId,
			String targetNamespace, String targetId, String actorName, String workflowName,
			@Nullable String operationClass) {
		String[] n = normalizeAll(operationClasses::normalize,
				new String[] { tenantId, programId, targetNamespace, targetId, actorName, workflowName, operationClass });
		return new LockIdentity(n[0], n[1], n[2], n[3], n[4], n[5], n[6]);
	}

	/** As {@link #of(OperationClasses, String, String, String, String, String, String, String)} with only {@code default}. */
	public static LockIdentity of(String tenantId, String programId, String targetNamespace, String targetId,
			String actorName, String workflowName, @Nullable String operationClass) {
		return of(OperationClasses.defaults(), tenantId, programId, targetNamespace, targetId, actorName, workflowName,
				operationClass);
	}

	private static String[] normalizeAll(UnaryOperator<String> operationClass, String[] raw) {
		return new String[] { IdentityRules.slug("tenant_id", raw[0]), IdentityRules.slug("program_id", raw[1]),
				IdentityRules.slug("target_namespace", raw[2]), IdentityRules.targetId(raw[3]),
				IdentityRules.slug("actor_name", raw[4]), IdentityRules.slug("workflow_name", raw[5]),
				operationClass.apply(raw[6]) };
	}

	/** The canonical text: {@code [1,"tenant",...]}, compact JSON with raw UTF-8 and no escapes. */
	public String canonicalText() {
		StringBuilder text = new StringBuilder(128).append("[1");
		for (String component : components()) {
			text.append(",\"").append(component).append('"');
		}
		return text.append(']').toString();
	}

	/** The digest part of the lock key: unpadded base64url of SHA-256 over the canonical text. */
	public String keyDigest() {
		return DigestCache.get(this, identity -> base64Sha256(identity.canonicalText()));
	}

	/** The opaque lock key: {@code starintel:target-lease:v1:} + {@link #keyDigest()}. */
	public String lockKey() {
		return KEY_PREFIX + keyDigest();
	}

	/** The components in canonical order. */
	public List<String> components() {
		return List.of(this.tenantId, this.programId, this.targetNamespace, this.targetId, this.actorName,
				this.workflowName, this.operationClass);
	}

	/** The scope (tenant, program) this identity belongs to. */
	public ProgramScope scope() {
		return new ProgramScope(this.tenantId, this.programId);
	}

	static String base64Sha256(String text) {
		return DigestCache.base64Sha256(text);
	}

	/** Never prints the target id: identities may name real-world targets. */
	@Override
	public String toString() {
		return "LockIdentity[" + this.tenantId + "/" + this.programId + "/" + this.targetNamespace + "/<target>/"
				+ this.actorName + "/" + this.workflowName + "/" + this.operationClass + "]";
	}

}
