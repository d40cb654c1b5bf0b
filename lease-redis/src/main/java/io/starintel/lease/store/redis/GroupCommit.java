package io.starintel.lease.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.starintel.lease.core.Reason;
import io.starintel.lease.store.redis.internal.LeaseLibrary;
import io.starintel.lease.store.redis.internal.ScriptExecutor;
import io.starintel.lease.store.redis.internal.ScriptFailure;

/**
 * Group commit per program (one slot): while {@value #MAX_IN_FLIGHT} calls of a program are in flight, further
 * acquires, renewals, releases and commit authorizations of that program wait in a bounded client-side queue, and the
 * next call takes up to {@value #MAX_BATCH} of them in one batched function call ({@code lease.lua} batch, one replica
 * wait for all). Each item keeps its own backend-time deadline check, idempotency claim, typed reply and
 * linearization point inside the atomic call; a lost reply makes every item outcome-unknown (resolvable by request
 * id, each with its own).
 *
 * <p>No backend wait and no added latency while fewer calls are in flight: a call goes out at once, on its caller's
 * thread, pipelined with the others on the store's connection (a call without a replica wait gives its connection
 * back once it is written: {@code ScriptExecutor}). Eight in flight rather than two: with two, 8 callers of one
 * program took turns at the server through thread hand-overs and left it idle between batches (the store at 0.39× the
 * bare reference with 8 threads on distinct targets, against 0.60× with eight: docs/benchmarks.md, "Group commit with
 * eight calls in flight"); batches form once more callers than that are waiting. Each call in flight holds one of the
 * program's turns, and a turn passes from caller to caller: once a call's reply is in, its caller hands the turn to
 * the first queued caller not yet holding one, whose own item leads the next batch, and returns. A caller holding a
 * turn sends its own item (no other batch takes it). A caller whose deadline passes while it is still queued leaves
 * the queue: nothing was sent ({@code deadline_exceeded}); one whose item is in flight waits for the reply no longer
 * than its own deadline ({@code lease_outcome_unknown} otherwise).
 */
final class GroupCommit {

	/** Most items per batched call. */
	static final int MAX_BATCH = 64;

	/** Most calls of one program in flight at once (each holds a turn). */
	static final int MAX_IN_FLIGHT = 8;

	/** Most callers queued per program; beyond it a call goes out on its own (never a wait without a bound). */
	static final int MAX_QUEUE = 1024;

	private static final Set<LeaseLibrary.Function> BATCHABLE = Set.of(LeaseLibrary.Function.ACQUIRE,
			LeaseLibrary.Function.RENEW, LeaseLibrary.Function.RELEASE, LeaseLibrary.Function.AUTHORIZE);

	private static final byte[] ITEM_ERROR = "item_error".getBytes(StandardCharsets.US_ASCII);

	private final ScriptExecutor executor;

	private final Map<ProgramKey, Slot> slots = new ConcurrentHashMap<>();

	GroupCommit(ScriptExecutor executor) {
		this.executor = executor;
	}

	/** Whether calls of the function join batches. */
	static boolean batchable(LeaseLibrary.Function function) {
		return BATCHABLE.contains(function);
	}

	/** One program's queue and its turns in use (calls in flight or about to be sent by their turn's holder). */
	private static final class Slot {

		final ArrayDeque<Item> queue = new ArrayDeque<>();

		int turns;

	}

	/** One queued call: its result, and the signal that its caller is to send the next batch. */
	private static final class Item {

		final FunctionCall call;

		final Instant deadlineAt;

		final CompletableFuture<List<Object>> result = new CompletableFuture<>();

		final CompletableFuture<Boolean> lead = new CompletableFuture<>();

		/** Taken into a batch (under the slot's lock). */
		boolean taken;

		/** Handed a turn: its caller sends the next batch with this item first (under the slot's lock). */
		boolean leading;

		Item(FunctionCall call, Instant deadlineAt) {
			this.call = call;
			this.deadlineAt = deadlineAt;
		}

	}

	/** Runs the call alone or in a batch with concurrent calls of its program. */
	List<Object> run(FunctionCall call, Instant deadlineAt) throws ScriptFailure {
		if (!batchable(call.function())) {
			return this.executor.run(call.function(), deadlineAt, call.keys(), call.args());
		}
		Slot slot = this.slots.computeIfAbsent(new ProgramKey(call.keys()[0]), (base) -> new Slot());
		Item item = null;
		boolean alone = false;
		synchronized (slot) {
			if (slot.turns < MAX_IN_FLIGHT) {
				slot.turns++;
				alone = true;
			}
			else if (slot.queue.size() < MAX_QUEUE) {
				item = new Item(call, deadlineAt);
				slot.queue.addLast(item);
			}
		}
		if (alone) {
			// nothing in flight: the call goes out at once, and whoever queued meanwhile is handed the queue after it
			try {
				return this.executor.run(call.function(), deadlineAt, call.keys(), call.args());
			}
			finally {
				synchronized (slot) {
					handOver(slot);
				}
			}
		}
		if (item == null) {
			return this.executor.run(call.function(), deadlineAt, call.keys(), call.args());
		}
		if (awaitTurn(slot, item)) {
			lead(slot, item);
		}
		return outcome(slot, item);
	}

	/** Waits until the item is answered (false) or its caller is to lead (true), or leaves the queue at the deadline. */
	private boolean awaitTurn(Slot slot, Item item) throws ScriptFailure {
		try {
			CompletableFuture.anyOf(item.result, item.lead).get(remaining(item.deadlineAt), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			synchronized (slot) {
				if (!item.taken) {
					slot.queue.remove(item);
					if (item.lead.isDone()) {
						handOver(slot);
					}
					throw new ScriptFailure(ScriptFailure.Kind.DEADLINE_BEFORE_SUBMISSION, "deadline passed in the queue");
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			synchronized (slot) {
				if (!item.taken) {
					slot.queue.remove(item);
					if (item.lead.isDone()) {
						handOver(slot);
					}
					throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "interrupted in the queue");
				}
			}
		}
		catch (ExecutionException ex) {
			// results complete normally; nothing to do
		}
		return !item.result.isDone() && item.lead.isDone();
	}

	/**
	 * Sends the queue's next batch, then hands the turn on. The batch takes the queued items in order, except those
	 * of other callers holding a turn (each sends its own). The leader's own item is therefore the batch's first: it
	 * was the first queued item without a turn when it was handed one, and only items with a turn can be ahead of it.
	 */
	private void lead(Slot slot, Item leader) {
		List<Item> batch = new ArrayList<>();
		synchronized (slot) {
			Iterator<Item> queued = slot.queue.iterator();
			while (queued.hasNext() && batch.size() < MAX_BATCH) {
				Item next = queued.next();
				if (next.leading && next != leader) {
					continue;
				}
				queued.remove();
				next.taken = true;
				batch.add(next);
			}
		}
		try {
			send(batch);
		}
		finally {
			synchronized (slot) {
				handOver(slot);
			}
		}
	}

	/**
	 * Hands a turn to the first queued caller not holding one, or gives it back when there is none (under the slot's
	 * lock).
	 */
	private static void handOver(Slot slot) {
		for (Item next : slot.queue) {
			if (!next.leading) {
				next.leading = true;
				next.lead.complete(Boolean.TRUE);
				return;
			}
		}
		slot.turns--;
	}

	/**
	 * One call for a single item, a batched call for several; completes every item's result. The batch's reply is
	 * awaited until the latest of its items' deadlines (each item checks its own at backend time, and each caller stops
	 * waiting at its own).
	 */
	private void send(List<Item> batch) {
		if (batch.size() == 1) {
			Item only = batch.get(0);
			try {
				only.result.complete(this.executor.run(only.call.function(), only.deadlineAt, only.call.keys(),
						only.call.args()));
			}
			catch (ScriptFailure failure) {
				only.result.completeExceptionally(failure);
			}
			catch (RuntimeException ex) {
				only.result.completeExceptionally(new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, "no reply"));
			}
			return;
		}
		List<byte[]> keys = new ArrayList<>();
		List<byte[]> args = new ArrayList<>();
		args.add(ArgumentBytes.number(batch.size()));
		Instant deadlineAt = batch.get(0).deadlineAt;
		for (Item item : batch) {
			if (item.deadlineAt.isAfter(deadlineAt)) {
				deadlineAt = item.deadlineAt;
			}
			FunctionCall call = item.call;
			args.add(call.function().operation().getBytes(StandardCharsets.US_ASCII));
			args.add(ArgumentBytes.number(call.keys().length));
			args.add(ArgumentBytes.number(call.args().length));
			keys.addAll(List.of(call.keys()));
			args.addAll(List.of(call.args()));
		}
		List<Object> reply;
		try {
			reply = this.executor.run(LeaseLibrary.Function.BATCH, deadlineAt, keys.toArray(new byte[0][]),
					args.toArray(new byte[0][]));
		}
		catch (ScriptFailure failure) {
			for (Item item : batch) {
				item.result.completeExceptionally(failure);
			}
			return;
		}
		catch (RuntimeException ex) {
			for (Item item : batch) {
				item.result.completeExceptionally(new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, "no reply"));
			}
			return;
		}
		int at = 0;
		for (Item item : batch) {
			try {
				int length = Integer.parseInt(ReplyReader.text(reply, at));
				List<Object> one = new ArrayList<>(reply.subList(at + 1, at + 1 + length));
				at += 1 + length;
				if (length == 1 && one.get(0) instanceof byte[] bytes && Arrays.equals(bytes, ITEM_ERROR)) {
					item.result.completeExceptionally(new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN,
							"batch item failed in the script"));
				}
				else {
					item.result.complete(one);
				}
			}
			catch (RuntimeException ex) {
				item.result.completeExceptionally(new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN,
						Reason.REPLY_LOST, "unreadable batch reply"));
			}
		}
	}

	/** The item's result, waited for no longer than its deadline. */
	private static List<Object> outcome(Slot slot, Item item) throws ScriptFailure {
		try {
			return item.result.get(remaining(item.deadlineAt), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, "no reply before the deadline");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, "interrupted while awaiting the reply");
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof ScriptFailure failure) {
				throw failure;
			}
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, "no usable reply");
		}
	}

	private static long remaining(Instant deadlineAt) {
		return Math.max(1, deadlineAt.toEpochMilli() - System.currentTimeMillis());
	}

	/**
	 * A program's key base {@code P{T}:} as a map key, read in place from a call's first key (no string per call):
	 * the bytes up to and including the hash tag's closing brace.
	 */
	private static final class ProgramKey {

		private final byte[] key;

		private final int length;

		private final int hash;

		ProgramKey(byte[] key) {
			this.key = key;
			int end = key.length;
			for (int i = 0; i < key.length; i++) {
				if (key[i] == '}') {
					end = i + 1;
					break;
				}
			}
			this.length = end;
			int h = 1;
			for (int i = 0; i < end; i++) {
				h = 31 * h + key[i];
			}
			this.hash = h;
		}

		@Override
		public boolean equals(Object other) {
			return other instanceof ProgramKey that && this.hash == that.hash
					&& Arrays.equals(this.key, 0, this.length, that.key, 0, that.length);
		}

		@Override
		public int hashCode() {
			return this.hash;
		}

	}

	/** Programs with a queue (for tests). */
	int programs() {
		return this.slots.size();
	}

}
