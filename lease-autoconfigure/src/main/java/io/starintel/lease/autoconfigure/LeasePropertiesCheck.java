package io.starintel.lease.autoconfigure;

import java.time.Duration;
import java.util.Base64;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseConfigurationException.Problem;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.job.internal.LeaseDurationFormat;

/**
 * The checks of {@link LeaseProperties}: identifiers, positive durations and the timing invariants between them, and
 * the bounds of each group; each problem names its property ({@code starintel.lease.<group>.<key>}).
 */
final class LeasePropertiesCheck {

	private static final String PREFIX = LeaseProperties.PREFIX;

	private LeasePropertiesCheck() {
	}

	static void checkIdentity(LeaseProperties p, List<Problem> problems) {
		identifier(problems, "tenant", p.getTenant());
		identifier(problems, "program", p.getProgram());
		identifier(problems, "owner.service-principal", p.getOwner().servicePrincipal());
		identifier(problems, "owner.client-id", p.getOwner().clientId());
		identifier(problems, "owner.credential-id", p.getOwner().credentialId());
		if (p.getOwner().serviceInstanceId() != null) {
			identifier(problems, "owner.service-instance-id", p.getOwner().serviceInstanceId());
		}
		if (p.getTenant() != null && p.getProgram() != null && problems.isEmpty()) {
			try {
				LockIdentity.of(p.getTenant(), p.getProgram(), "starintel-target", "probe", "probe", "default",
						"default");
			}
			catch (InvalidLeaseRequestException ex) {
				problems.add(new Problem(PREFIX + ("tenant_id".equals(ex.field()) ? "tenant" : "program"),
						"is not a canonical identity component: " + ex.getMessage()));
			}
		}
		if (!LockIdentity.KEY_PREFIX.equals(p.getKeyPrefix())) {
			problems.add(new Problem(PREFIX + "key-prefix", ": only the lock-key v1 prefix " + LockIdentity.KEY_PREFIX
					+ " is supported"));
		}
		try {
			OperationClasses.of(p.getOperationClasses());
		}
		catch (InvalidLeaseRequestException ex) {
			problems.add(new Problem(PREFIX + "operation-classes", ": " + ex.getMessage()));
		}
	}

	/** Every duration positive; the timing invariants (in the spirit of client-go's leader-election checks). */
	static void checkTimings(LeaseProperties p, List<Problem> problems) {
		boolean positive = positive(problems, "ttl.minimum", p.getTtl().minimum())
				& positive(problems, "ttl.maximum", p.getTtl().maximum())
				& positive(problems, "ttl.maximum-lifetime", p.getTtl().maximumLifetime())
				& positive(problems, "request.timeout", p.getRequest().timeout())
				& positive(problems, "request.maximum-deadline", p.getRequest().maximumDeadline())
				& positive(problems, "request.maximum-wait", p.getRequest().maximumWait())
				& positive(problems, "renewal.margin", p.getRenewal().margin())
				& positive(problems, "history.retention", p.getHistory().retention())
				& positive(problems, "idempotency.retry-window", p.getIdempotency().retryWindow())
				& positive(problems, "fencing.clock-skew-bound", p.getFencing().clockSkewBound());
		if (!positive) {
			return;
		}
		before(problems, "ttl.minimum", p.getTtl().minimum(), "ttl.maximum", p.getTtl().maximum(), true, "");
		before(problems, "request.timeout", p.getRequest().timeout(), "request.maximum-deadline",
				p.getRequest().maximumDeadline(), false, "");
		before(problems, "renewal.margin", p.getRenewal().margin(), "ttl.maximum", p.getTtl().maximum(), true,
				": a lease must be renewable before its safety margin");
		before(problems, "request.maximum-wait", p.getRequest().maximumWait(), "request.maximum-deadline",
				p.getRequest().maximumDeadline(), false, "");
		Duration shutdown = p.getJob().shutdownTimeout();
		if (shutdown.isNegative() || shutdown.isZero() || shutdown.compareTo(Duration.ofSeconds(25)) > 0) {
			problems.add(new Problem(PREFIX + "job.shutdown-timeout", "(" + LeaseDurationFormat.format(shutdown)
					+ ") must be positive and at most 25s (below Spring Boot's 30s lifecycle phase timeout)"));
		}
	}

	static void checkBounds(LeaseProperties p, List<Problem> problems) {
		if (p.getRenewal().threads() < 1 || p.getRenewal().threads() > 16) {
			problems.add(new Problem(PREFIX + "renewal.threads", "(" + p.getRenewal().threads()
					+ ") must be between 1 and 16"));
		}
		if (p.getHistory().length() < 1) {
			problems.add(new Problem(PREFIX + "history.length", "(" + p.getHistory().length() + ") must be positive"));
		}
		if (p.getList().maximumPageSize() < 1) {
			problems.add(new Problem(PREFIX + "list.maximum-page-size",
					"(" + p.getList().maximumPageSize() + ") must be positive"));
		}
		if (p.getList().cursorSecret() != null && cursorSecret(p.getList().cursorSecret()) == null) {
			problems.add(new Problem(PREFIX + "list.cursor-secret", "must be base64 of 16, 24 or 32 bytes"));
		}
		if (p.getAttachments().maximumKeysPerLease() < 1 || p.getAttachments().maximumKeysPerLease() > 1_000_000) {
			problems.add(new Problem(PREFIX + "attachments.maximum-keys-per-lease",
					"(" + p.getAttachments().maximumKeysPerLease() + ") must be between 1 and 1000000"));
		}
		if (p.getAttachments().maximumValueSize().toBytes() < 1
				|| p.getAttachments().maximumValueSize().toBytes() > LeaseProperties.Attachments.VALUE_SIZE_CEILING
					.toBytes()) {
			problems.add(new Problem(PREFIX + "attachments.maximum-value-size",
					"(" + p.getAttachments().maximumValueSize() + ") must be between 1B and 16MB"));
		}
		if (p.getLimits().maxActiveLeasesPerProgram() < 1) {
			problems.add(new Problem(PREFIX + "limits.max-active-leases-per-program", "must be positive"));
		}
		for (Long limit : p.getLimits().maxActiveLeasesPerProgramByTenant().values()) {
			if (limit == null || limit < 1) {
				problems.add(
						new Problem(PREFIX + "limits.max-active-leases-per-program-by-tenant", "must be positive"));
				break;
			}
		}
	}

	private static void identifier(List<Problem> problems, String property, @Nullable String value) {
		if (value == null || value.isEmpty()) {
			problems.add(new Problem(PREFIX + property, "must be set"));
			return;
		}
		try {
			Identifiers.require(property, value);
		}
		catch (InvalidLeaseRequestException ex) {
			problems.add(new Problem(PREFIX + property, "must be 1.." + Identifiers.MAX_LENGTH
					+ " characters of [A-Za-z0-9._:@-]"));
		}
	}

	private static boolean positive(List<Problem> problems, String property, @Nullable Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			problems.add(new Problem(PREFIX + property, "must be a positive duration"));
			return false;
		}
		return true;
	}

	/** {@code shorter} must be below {@code longer} ({@code strict}) or not above it. */
	private static void before(List<Problem> problems, String shorter, Duration shorterValue, String longer,
			Duration longerValue, boolean strict, String why) {
		int comparison = shorterValue.compareTo(longerValue);
		if (strict ? comparison >= 0 : comparison > 0) {
			problems.add(new Problem(PREFIX + shorter, "(" + LeaseDurationFormat.format(shorterValue) + ") must "
					+ (strict ? "be below " : "not exceed ") + PREFIX + longer + " ("
					+ LeaseDurationFormat.format(longerValue) + ")" + why));
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
