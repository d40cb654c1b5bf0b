package io.starintel.lease.admin.internal;

import java.util.Set;

/**
 * Capability names, granted as Spring Security authorities.
 *
 * <p>Contract: force-release and revoke require {@code targets:force-release} or the separately defined
 * administrator capability ({@code targets:revoke}) and a distinct administrator credential; ordinary callers only
 * read leases in their authorized scope ({@code targets:read}).
 */
public final class AdminCapability {

	/** Read (list, inspect) leases inside the caller's scope. */
	public static final String READ = "targets:read";

	/** Force-release an observed active lease (operational terminal state). */
	public static final String FORCE_RELEASE = "targets:force-release";

	/** Revoke an observed active lease (security terminal state): the administrator capability. */
	public static final String REVOKE = "targets:revoke";

	/** Every capability this module knows. */
	public static final Set<String> ALL = Set.of(READ, FORCE_RELEASE, REVOKE);

	private AdminCapability() {
	}

	/** Whether a capability may only be held by an administrator credential. */
	public static boolean isAdministrative(String capability) {
		return FORCE_RELEASE.equals(capability) || REVOKE.equals(capability);
	}

}
