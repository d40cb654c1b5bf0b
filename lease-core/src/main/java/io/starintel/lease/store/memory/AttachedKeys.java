package io.starintel.lease.store.memory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;

/**
 * The reference model's attached keys: name to value per lease id (in name order) and, per program, which lease
 * each name belongs to. The decisions of the four attached-key operations, taken on the holder or scope the store
 * has already established; {@code activeById} is the store's view of a lease id's active record at the decision
 * time. Not thread-safe: the store calls it under its one lock.
 */
final class AttachedKeys {

	/** Attached keys per lease id: name to value, in name order. */
	private final Map<String, TreeMap<String, String>> byLease = new HashMap<>();

	/** Which lease id each attached name of a program belongs to. */
	private final Map<ProgramScope, Map<String, String>> owners = new HashMap<>();

	/** Attaches (or replaces) a name for the exact holder, unless another active lease owns it or the bound is hit. */
	AttachmentResult put(LeaseRecord holder, String name, String value, int maximumKeys, Instant now,
			Function<String, @Nullable LeaseRecord> activeById) {
		Map<String, String> scopeOwners = this.owners.computeIfAbsent(holder.identity().scope(), k -> new HashMap<>());
		String owner = scopeOwners.get(name);
		if (owner != null && !owner.equals(holder.leaseId())) {
			if (activeById.apply(owner) != null) {
				return AttachmentResult.failure(ResultCode.LEASE_CONFLICT, Reason.ATTACHED_TO_ANOTHER_LEASE, now);
			}
			scopeOwners.remove(name);
		}
		TreeMap<String, String> keys = this.byLease.computeIfAbsent(holder.leaseId(), k -> new TreeMap<>());
		if (!keys.containsKey(name) && keys.size() >= maximumKeys) {
			return AttachmentResult.failure(ResultCode.LEASE_RATE_LIMITED, Reason.ATTACHED_KEY_LIMIT_REACHED, now);
		}
		keys.put(name, value);
		scopeOwners.put(name, holder.leaseId());
		return AttachmentResult.done(ResultCode.ATTACHMENT_STORED, name, now);
	}

	/** Deletes a name of the exact holder. */
	AttachmentResult delete(LeaseRecord holder, String name, Instant now) {
		TreeMap<String, String> keys = this.byLease.get(holder.leaseId());
		if (keys == null || keys.remove(name) == null) {
			return AttachmentResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.ATTACHMENT_NOT_FOUND, now);
		}
		this.owners.get(holder.identity().scope()).remove(name);
		return AttachmentResult.done(ResultCode.ATTACHMENT_DELETED, name, now);
	}

	/** The value of a name of a program while its lease is active. */
	AttachmentResult get(ProgramScope scope, String name, Instant now,
			Function<String, @Nullable LeaseRecord> activeById) {
		String owner = this.owners.getOrDefault(scope, Map.of()).get(name);
		LeaseRecord lease = (owner != null) ? activeById.apply(owner) : null;
		if (owner == null || lease == null || !lease.identity().scope().equals(scope)) {
			return AttachmentResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.ATTACHMENT_NOT_FOUND, now);
		}
		return AttachmentResult.read(name, this.byLease.get(owner).get(name), owner, now);
	}

	/** The names attached to an active lease of a program, in name order. */
	AttachmentResult list(ProgramScope scope, String leaseId, Instant now,
			Function<String, @Nullable LeaseRecord> activeById) {
		LeaseRecord lease = activeById.apply(leaseId);
		if (lease == null || !lease.identity().scope().equals(scope)) {
			return AttachmentResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.NONE, now);
		}
		TreeMap<String, String> keys = this.byLease.get(leaseId);
		return AttachmentResult.listed(leaseId, (keys != null) ? new ArrayList<>(keys.keySet()) : List.of(), now);
	}

	/** Deletes every attached key of exactly this (ending) lease, in the same step as the ending transition. */
	void removeAll(LeaseRecord ending) {
		TreeMap<String, String> keys = this.byLease.remove(ending.leaseId());
		if (keys != null) {
			Map<String, String> scopeOwners = this.owners.get(ending.identity().scope());
			for (String name : keys.keySet()) {
				scopeOwners.remove(name, ending.leaseId());
			}
		}
	}

}
