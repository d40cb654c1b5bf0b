package io.starintel.lease.core;

import java.util.Collection;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

/**
 * The closed set of operation classes (lock-key v1): {@code default} plus those an application declares at
 * start-up. The set is immutable once built.
 */
public final class OperationClasses {

	/** Canonical absent value of {@code operation_class}. */
	public static final String DEFAULT = "default";

	private static final OperationClasses DEFAULTS = new OperationClasses(Set.of(DEFAULT));

	private final Set<String> members;

	private OperationClasses(Set<String> members) {
		this.members = Set.copyOf(members);
	}

	/** The built-in set, holding only {@code default}. */
	public static OperationClasses defaults() {
		return DEFAULTS;
	}

	/**
	 * Builds the closed set from declared names: each must be an ASCII slug of 1..64 characters; names are
	 * lowercased and {@code default} is always included.
	 * @throws InvalidLeaseRequestException if a declared name is not a valid slug
	 */
	public static OperationClasses of(Collection<String> declared) {
		Set<String> members = new TreeSet<>();
		members.add(DEFAULT);
		for (String name : declared) {
			members.add(IdentityRules.slug("operation_class", name));
		}
		return new OperationClasses(members);
	}

	/** Normalizes a raw operation class: null/empty means {@code default}; unknown values are rejected. */
	String normalize(@Nullable String raw) {
		if (raw == null || raw.isEmpty()) {
			return DEFAULT;
		}
		String value = IdentityRules.common("operation_class", raw).toLowerCase(Locale.ROOT);
		if (!this.members.contains(value)) {
			throw new InvalidLeaseRequestException("operation_class", "unknown operation class");
		}
		return value;
	}

	/** The members, sorted. */
	public Set<String> members() {
		return new TreeSet<>(this.members);
	}

}
