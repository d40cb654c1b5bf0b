package io.starintel.lease.admin;

import org.jspecify.annotations.Nullable;

/**
 * The grant of the caller of the current request, or {@code null} when the request is not authenticated (then the
 * endpoint answers 401 {@code invalid_credential} before any lease access). Without Spring Security on the class path
 * no caller is ever authenticated: the endpoint fails closed.
 */
@FunctionalInterface
public interface AdminCaller {

	/** The current caller's grant, or {@code null}. */
	@Nullable AdminGrant current();

}
