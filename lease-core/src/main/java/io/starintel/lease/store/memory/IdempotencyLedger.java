package io.starintel.lease.store.memory;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.Operation;

/**
 * The reference model's idempotency ledger: the result of each successful mutation under its idempotency key
 * (operation, lock key, principal, request id), with the request digest it answered and the end of its retention.
 * Not thread-safe: the store calls it under its one lock.
 *
 * @param <R> the result type (lease or attached-key results)
 */
final class IdempotencyLedger<R> {

	/** A stored result, the digest of the request it answered and when it stops being replayed. */
	record Entry<R>(String digest, R result, Instant expiresAt) {
	}

	private final Map<String, Entry<R>> entries = new HashMap<>();

	/** The idempotency key of a mutation: operation, lock key, principal and request id. */
	static String key(Operation operation, String lockKey, String principal, String requestId) {
		return operation.wireName() + "\n" + lockKey + "\n" + principal + "\n" + requestId;
	}

	/** The entry of a key that is still retained at {@code now}, or {@code null} (a retired entry is dropped). */
	@Nullable Entry<R> find(String key, Instant now) {
		Entry<R> entry = this.entries.get(key);
		if (entry != null && !now.isBefore(entry.expiresAt())) {
			this.entries.remove(key);
			return null;
		}
		return entry;
	}

	/** Stores a successful result under its key until {@code expiresAt}. */
	void remember(String key, String digest, R result, Instant expiresAt) {
		this.entries.put(key, new Entry<>(digest, result, expiresAt));
	}

}
