package io.starintel.lease.autoconfigure;

import java.time.Duration;
import java.util.Base64;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.internal.PropertyProblems;
import io.starintel.lease.job.internal.LeaseDurationFormat;

/**
 * The checks of {@link LeaseProperties}: identifiers, positive durations and the timing invariants between them, and
 * the bounds of each group; each problem names its property ({@code starintel.lease.<group>.<key>}).
 */
final class LeasePropertiesCheck {

	private static final String PREFIX = LeaseProperties.PREFIX;

	/** Largest {@code list.maximum-page-size}: far above any useful page, far below int overflow in the store. */
	static final int MAXIMUM_PAGE_SIZE = 10_000;

	/** Largest {@code job.shutdown-timeout}: below Spring Boot's 30s lifecycle phase timeout. */
	private static final Duration MAXIMUM_SHUTDOWN_TIMEOUT = Duration.ofSeconds(25);

	private LeasePropertiesCheck() {
	}

	static void checkIdentity(LeaseProperties p, PropertyProblems problems) {
		boolean scope = identifier(problems, "tenant", p.getTenant())
				& identifier(problems, "program", p.getProgram());
		identifier(problems, "owner.service-principal", p.getOwner().servicePrincipal());
		identifier(problems, "owner.client-id", p.getOwner().clientId());
		identifier(problems, "owner.credential-id", p.getOwner().credentialId());
		if (p.getOwner().serviceInstanceId() != null) {
			identifier(problems, "owner.service-instance-id", p.getOwner().serviceInstanceId());
		}
		// whenever both are identifiers, whatever else is wrong: every independent problem is listed
		if (scope && p.getTenant() != null && p.getProgram() != null) {
			try {
				LockIdentity.of(p.getTenant(), p.getProgram(), "starintel-target", "probe", "probe", "default",
						"default");
			}
			catch (InvalidLeaseRequestException ex) {
				problems.add("tenant_id".equals(ex.field()) ? "tenant" : "program",
						"is not a canonical identity component: " + ex.getMessage());
			}
		}
		if (!LockIdentity.KEY_PREFIX.equals(p.getKeyPrefix())) {
			problems.add("key-prefix", ": only the lock-key v1 prefix " + LockIdentity.KEY_PREFIX + " is supported");
		}
		try {
			OperationClasses.of(p.getOperationClasses());
		}
		catch (InvalidLeaseRequestException ex) {
			problems.add("operation-classes", ": " + ex.getMessage());
		}
	}

	/**
	 * Every duration positive; the timing invariants (in the spirit of client-go's leader-election checks). Each
	 * invariant is checked whenever its own two values are positive, so that one invalid value never hides an
	 * unrelated problem: the report lists every independent problem at once.
	 */
	static void checkTimings(LeaseProperties p, PropertyProblems problems) {
		boolean ttlMinimum = problems.positive("ttl.minimum", p.getTtl().minimum());
		boolean ttlMaximum = problems.positive("ttl.maximum", p.getTtl().maximum());
		problems.positive("ttl.maximum-lifetime", p.getTtl().maximumLifetime());
		boolean timeout = problems.positive("request.timeout", p.getRequest().timeout());
		boolean maximumDeadline = problems.positive("request.maximum-deadline", p.getRequest().maximumDeadline());
		boolean maximumWait = problems.positive("request.maximum-wait", p.getRequest().maximumWait());
		boolean margin = problems.positive("renewal.margin", p.getRenewal().margin());
		problems.positive("history.retention", p.getHistory().retention());
		problems.positive("idempotency.retry-window", p.getIdempotency().retryWindow());
		problems.positive("fencing.clock-skew-bound", p.getFencing().clockSkewBound());
		if (ttlMinimum && ttlMaximum) {
			problems.notAbove("ttl.minimum", p.getTtl().minimum(), PREFIX + "ttl.maximum", p.getTtl().maximum(), true,
					"");
		}
		if (timeout && maximumDeadline) {
			problems.notAbove("request.timeout", p.getRequest().timeout(), PREFIX + "request.maximum-deadline",
					p.getRequest().maximumDeadline(), false, "");
		}
		if (margin && ttlMaximum) {
			problems.notAbove("renewal.margin", p.getRenewal().margin(), PREFIX + "ttl.maximum", p.getTtl().maximum(),
					true, ": a lease must be renewable before its safety margin");
		}
		if (maximumWait && maximumDeadline) {
			problems.notAbove("request.maximum-wait", p.getRequest().maximumWait(), PREFIX + "request.maximum-deadline",
					p.getRequest().maximumDeadline(), false, "");
		}
		Duration shutdown = p.getJob().shutdownTimeout();
		if (shutdown == null || shutdown.isNegative() || shutdown.isZero()
				|| shutdown.compareTo(MAXIMUM_SHUTDOWN_TIMEOUT) > 0) {
			problems.add("job.shutdown-timeout", "(" + ((shutdown != null) ? LeaseDurationFormat.format(shutdown) : "")
					+ ") must be positive and at most 25s (below Spring Boot's 30s lifecycle phase timeout)");
		}
	}

	static void checkBounds(LeaseProperties p, PropertyProblems problems) {
		problems.between("renewal.threads", p.getRenewal().threads(), 1, 16);
		if (p.getHistory().length() < 1) {
			problems.add("history.length", "(" + p.getHistory().length() + ") must be positive");
		}
		// the store scans up to four times a page per call (an int): a bound far above any useful page keeps it exact
		problems.between("list.maximum-page-size", p.getList().maximumPageSize(), 1, MAXIMUM_PAGE_SIZE);
		if (p.getList().cursorSecret() != null && cursorSecret(p.getList().cursorSecret()) == null) {
			problems.add("list.cursor-secret", "must be base64 of 16, 24 or 32 bytes");
		}
		problems.between("attachments.maximum-keys-per-lease", p.getAttachments().maximumKeysPerLease(), 1, 1_000_000);
		if (p.getAttachments().maximumValueSize().toBytes() < 1
				|| p.getAttachments().maximumValueSize().toBytes() > LeaseProperties.Attachments.VALUE_SIZE_CEILING
					.toBytes()) {
			problems.add("attachments.maximum-value-size",
					"(" + p.getAttachments().maximumValueSize() + ") must be between 1B and 16MB");
		}
		if (p.getLimits().maxActiveLeasesPerProgram() < 1) {
			problems.add("limits.max-active-leases-per-program", "must be positive");
		}
		// the limits are looked up by the canonical tenant id: any other key would silently never apply
		new TreeMap<>(p.getLimits().maxActiveLeasesPerProgramByTenant()).forEach((tenant, limit) -> {
			String key = "limits.max-active-leases-per-program-by-tenant." + tenant;
			if (!canonicalTenant(tenant)) {
				problems.add(key, ": the key is not a canonical tenant id (lowercase, 1..64 characters of [a-z0-9._-], "
						+ "starting with a letter or digit), so it would never match a tenant");
			}
			if (limit == null || limit < 1) {
				problems.add(key, "must be positive");
			}
		});
	}

	/** Whether a tenant id is in the canonical form the limits are looked up by (exact match, no normalizing). */
	private static boolean canonicalTenant(String tenant) {
		try {
			new ProgramScope(tenant, "probe");
			return true;
		}
		catch (InvalidLeaseRequestException ex) {
			return false;
		}
	}

	private static boolean identifier(PropertyProblems problems, String property, @Nullable String value) {
		if (value == null || value.isEmpty()) {
			problems.add(property, "must be set");
			return false;
		}
		try {
			Identifiers.require(property, value);
			return true;
		}
		catch (InvalidLeaseRequestException ex) {
			problems.add(property, "must be 1.." + Identifiers.MAX_LENGTH + " characters of [A-Za-z0-9._:@-]");
			return false;
		}
	}

	static byte @Nullable [] cursorSecret(String text) {
		try {
			byte[] secret = Base64.getDecoder().decode(text.trim());
			return (secret.length == 16 || secret.length == 24 || secret.length == 32) ? secret : null;
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

}
