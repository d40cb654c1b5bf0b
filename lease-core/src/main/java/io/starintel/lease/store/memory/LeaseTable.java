package io.starintel.lease.store.memory;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.SweepResult;

/**
 * The reference model's lease state: active records, durable fencing counters and high-water marks, bounded
 * terminal history, terminal states, the lease-id index, the expired outbox and the attached keys, with the model's
 * primitive transitions (expire before deciding, end a lease, sweep). Not thread-safe: the store calls it under its
 * one lock.
 */
final class LeaseTable {

	/** Bound of each program's expired outbox (as the Redis store's). */
	private static final int EXPIRED_OUTBOX_LENGTH = 10_000;

	private final int historyLength;

	private final Map<String, LeaseRecord> active = new HashMap<>();

	private final Map<String, Long> counters = new HashMap<>();

	private final Map<String, Long> highWaterMarks = new HashMap<>();

	private final Map<String, Deque<LeaseRecord>> history = new HashMap<>();

	private final Map<String, LeaseState> terminalStates = new HashMap<>();

	private final Map<String, String> leaseIdToKey = new HashMap<>();

	/** Leases found expired by an operation other than the sweep, per program, oldest first: the sweep reports them. */
	private final Map<ProgramScope, Deque<LeaseRecord>> expiredOutbox = new HashMap<>();

	private final AttachedKeys attachedKeys = new AttachedKeys();

	LeaseTable(int historyLength) {
		this.historyLength = historyLength;
	}

	AttachedKeys attachedKeys() {
		return this.attachedKeys;
	}

	long counter(String lockKey) {
		return this.counters.getOrDefault(lockKey, 0L);
	}

	/** Sets the durable counter of a lock key; answers the previous one (0 when there was none). */
	long setCounter(String lockKey, long value) {
		Long previous = this.counters.put(lockKey, value);
		return (previous != null) ? previous : 0L;
	}

	long highWaterMark(String lockKey) {
		return this.highWaterMarks.getOrDefault(lockKey, 0L);
	}

	void raiseHighWaterMark(String lockKey, long token) {
		this.highWaterMarks.put(lockKey, token);
	}

	/** The lock key a lease id was issued for, or {@code null}. */
	@Nullable String lockKeyOf(String leaseId) {
		return this.leaseIdToKey.get(leaseId);
	}

	/** Makes a freshly issued record the active one of its key. */
	void start(LeaseRecord record) {
		this.active.put(record.lockKey(), record);
		this.leaseIdToKey.put(record.leaseId(), record.lockKey());
	}

	/** Replaces the active record of its key (a renewal). */
	void replace(LeaseRecord record) {
		this.active.put(record.lockKey(), record);
	}

	/** The active record of a key, after expiring it if backend time has reached {@code expires_at}. */
	@Nullable LeaseRecord current(String key, Instant now) {
		LeaseRecord record = this.active.get(key);
		if (record != null && !record.isAuthoritativeAt(now)) {
			LeaseRecord ended = end(record, LeaseState.EXPIRED);
			Deque<LeaseRecord> outbox = this.expiredOutbox.computeIfAbsent(record.identity().scope(),
					(scope) -> new ArrayDeque<>());
			outbox.addLast(ended);
			while (outbox.size() > EXPIRED_OUTBOX_LENGTH) {
				outbox.removeFirst();
			}
			return null;
		}
		return record;
	}

	/** Every active record at {@code now} (expiring the due ones first). */
	Collection<LeaseRecord> currentRecords(Instant now) {
		List<LeaseRecord> records = new ArrayList<>();
		for (String key : new ArrayList<>(this.active.keySet())) {
			LeaseRecord record = current(key, now);
			if (record != null) {
				records.add(record);
			}
		}
		return records;
	}

	/** The active record if the handle is its exact holder, or {@code null}. */
	@Nullable LeaseRecord held(LeaseHandle handle, Instant now) {
		LeaseRecord current = current(handle.identity().lockKey(), now);
		return (current != null && current.isHeldBy(handle)) ? current : null;
	}

	/** The active record of a lease id at {@code now} (expiring it first when due), or {@code null}. */
	@Nullable LeaseRecord activeById(String leaseId, Instant now) {
		String key = this.leaseIdToKey.get(leaseId);
		LeaseRecord current = (key != null) ? current(key, now) : null;
		return (current != null && current.leaseId().equals(leaseId)) ? current : null;
	}

	/** The state now of the lease a stored result carried, for a replay ({@code null} when it carried none). */
	@Nullable LeaseState stateOf(LeaseResult result, Instant now) {
		LeaseRecord original = result.lease();
		if (original == null) {
			return null;
		}
		LeaseRecord current = current(original.lockKey(), now);
		if (current != null && current.leaseId().equals(original.leaseId())) {
			return LeaseState.ACTIVE;
		}
		return this.terminalStates.getOrDefault(original.leaseId(), LeaseState.EXPIRED);
	}

	/** Active, unexpired leases of a program at backend time (the reference model counts; Redis keeps a ZCARD). */
	long activeLeases(ProgramScope scope, Instant now) {
		long count = 0;
		for (LeaseRecord record : this.active.values()) {
			if (record.isAuthoritativeAt(now) && record.identity().scope().equals(scope)) {
				count++;
			}
		}
		return count;
	}

	/** The programs with an active (or due) lease or an unreported expiry. */
	Set<ProgramScope> programs() {
		Set<ProgramScope> programs = new LinkedHashSet<>();
		for (LeaseRecord record : this.active.values()) {
			programs.add(record.identity().scope());
		}
		this.expiredOutbox.forEach((scope, outbox) -> {
			if (!outbox.isEmpty()) {
				programs.add(scope);
			}
		});
		return programs;
	}

	/** Moves the active record to bounded terminal history; the counter is never touched. */
	LeaseRecord end(LeaseRecord record, LeaseState terminal) {
		LeaseRecord ended = record.withState(terminal);
		this.active.remove(record.lockKey());
		this.attachedKeys.removeAll(record);
		this.terminalStates.put(record.leaseId(), terminal);
		Deque<LeaseRecord> entries = this.history.computeIfAbsent(record.lockKey(), k -> new ArrayDeque<>());
		entries.addFirst(ended);
		while (entries.size() > this.historyLength) {
			entries.removeLast();
		}
		return ended;
	}

	/**
	 * Reports the leases other operations found expired first (the expired outbox), then ends the program's due
	 * leases, earliest {@code expires_at} first (ties by lock key), at most the batch limit in all.
	 */
	SweepResult sweep(ProgramScope scope, int batchLimit, Instant now) {
		List<LeaseRecord> ended = new ArrayList<>();
		Deque<LeaseRecord> outbox = this.expiredOutbox.getOrDefault(scope, new ArrayDeque<>());
		while (!outbox.isEmpty() && ended.size() < batchLimit) {
			ended.add(outbox.removeFirst());
		}
		List<LeaseRecord> due = new ArrayList<>();
		for (LeaseRecord record : this.active.values()) {
			if (record.identity().scope().equals(scope) && !record.isAuthoritativeAt(now)) {
				due.add(record);
			}
		}
		due.sort(Comparator.comparing(LeaseRecord::expiresAt).thenComparing(LeaseRecord::lockKey));
		int room = batchLimit - ended.size();
		for (LeaseRecord record : due.subList(0, Math.min(due.size(), room))) {
			ended.add(end(record, LeaseState.EXPIRED));
		}
		boolean more = due.size() > room || !outbox.isEmpty();
		Instant nextDue = null;
		for (LeaseRecord record : this.active.values()) {
			if (record.identity().scope().equals(scope) && (nextDue == null || record.expiresAt().isBefore(nextDue))) {
				nextDue = record.expiresAt();
			}
		}
		return new SweepResult(SweepResult.Status.SWEPT, ended, ended.size(), 0, more, activeLeases(scope, now), now,
				nextDue);
	}

	/** Terminal history of an identity, newest first. */
	List<LeaseRecord> history(String lockKey) {
		return List.copyOf(this.history.getOrDefault(lockKey, new ArrayDeque<>()));
	}

}
