package io.starintel.lease.core;

/**
 * The ownership boundary (tenant, program) of the contract; also the unit of one Redis hash tag.
 */
public record ProgramScope(String tenantId, String programId) {

	/** Validates and lowercases both components like the lock identity does. */
	public ProgramScope {
		String tenant = IdentityRules.slug("tenant_id", tenantId);
		String program = IdentityRules.slug("program_id", programId);
		if (!tenant.equals(tenantId) || !program.equals(programId)) {
			throw new InvalidLeaseRequestException(tenant.equals(tenantId) ? "program_id" : "tenant_id",
					"not in canonical form");
		}
	}

	/** Normalizing factory for raw input. */
	public static ProgramScope of(String tenantId, String programId) {
		return new ProgramScope(IdentityRules.slug("tenant_id", tenantId), IdentityRules.slug("program_id", programId));
	}

	/**
	 * The hash tag of this scope (docs/ARCHITECTURE.md, "Redis key layout"): the first 16 characters of unpadded
	 * base64url of SHA-256 over {@code [1,"tenant","program"]}.
	 */
	public String hashTag() {
		return DigestCache.get(this, scope -> LockIdentity
			.base64Sha256("[1,\"" + scope.tenantId + "\",\"" + scope.programId + "\"]")
			.substring(0, 16));
	}

}
