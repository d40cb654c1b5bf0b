package io.starintel.lease.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
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
 * Group commit per program (one slot): while a call of a program is in flight, further acquires, renewals, releases
 * and commit authorizations of that program wait in a bounded client-side queue, and the next call takes up to
 * {@value #MAX_BATCH} of them in one batched function call ({@code lease.lua} batch, one replica wait for all). Each
 * item keeps its own backend-time deadline check, idempotency claim, typed reply and linearization point inside the
 * atomic call; a lost reply makes every item outcome-unknown (resolvable by request id, each with its own).
 *
 * <p>No backend wait and no added latency when nothing is in flight: a call goes out at once, on its caller's thread.
 * Leadership passes from caller to caller: the thread whose call went out sends the next batch only if its own item
 * is in it; once its reply is in, it hands the queue to the next waiting caller and returns. A caller whose deadline
 * passes while it is still queued leaves the queue: nothing was sent ({@code deadline_exceeded}); one whose item is
 * in flight waits for the reply no longer than its own deadline ({@code lease_outcome_unknown} otherwise).
 */
final class GroupCommit {

	/** Most items per batched call. */
	static final int MAX_BATCH = 64;

	/** Most callers queued per program; beyond it a call goes out on its own (never a wait without a bound). */
	static final int MAX_QUEUE = 1024;

	private static final Set<LeaseLibrary.Function> BATCHABLE = Set.of(LeaseLibrary.Function.ACQUIRE,
			LeaseLibrary.Function.RENEW, LeaseLibrary.Function.RELEASE, LeaseLibrary.Function.AUTHORIZE);

	private static final byte[] ITEM_ERROR = "item_error".getBytes(StandardCharsets.US_ASCII);

	private final ScriptExecutor executor;

	private final Map<String, Slot> slots = new ConcurrentHashMap<>();

	GroupCommit(ScriptExecutor executor) {
		this.executor = executor;
	}

	/** Whether calls of the function join batches. */
	static boolean batchable(LeaseLibrary.Function function) {
		return BATCHABLE.contains(function);
	}

	/** One program's queue and whether a caller is sending for it. */
	private static final class Slot {

		final ArrayDeque<Item> queue = new ArrayDeque<>();

		boolean leading;

	}

	/** One queued call: its result, and the signal that its caller is to send the next batch. */
	private static final class Item {

		final FunctionCall call;

		final Instant deadlineAt;

		final CompletableFuture<List<Object>> result = new CompletableFuture<>();

		final CompletableFuture<Boolean> lead = new CompletableFuture<>();

		boolean taken;

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
		Slot slot = this.slots.computeIfAbsent(call.programBase(), (base) -> new Slot());
		Item item = new Item(call, deadlineAt);
		boolean lead;
		synchronized (slot) {
			if (slot.leading && slot.queue.size() >= MAX_QUEUE) {
				lead = false;
				item = null;
			}
			else {
				slot.queue.addLast(item);
				lead = !slot.leading;
				slot.leading = true;
			}
		}
		if (item == null) {
			return this.executor.run(call.function(), deadlineAt, call.keys(), call.args());
		}
		if (lead || awaitTurn(slot, item)) {
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
	 * Sends the queue's next batch, then hands the queue on. The leader's own item is the queue's head (it was queued
	 * before any later caller, or the queue was handed to it as its head), so it is always in the batch.
	 */
	private void lead(Slot slot, Item leader) {
		List<Item> batch = new ArrayList<>();
		synchronized (slot) {
			while (!slot.queue.isEmpty() && batch.size() < MAX_BATCH) {
				Item next = slot.queue.pollFirst();
				next.taken = true;
				batch.add(next);
			}
		}
		try {
			send(batch, leader.deadlineAt);
		}
		finally {
			synchronized (slot) {
				handOver(slot);
			}
		}
	}

	/** Gives the queue to the next waiting caller, or marks the program idle (under the slot's lock). */
	private static void handOver(Slot slot) {
		Item next = slot.queue.peekFirst();
		if (next == null) {
			slot.leading = false;
		}
		else {
			next.lead.complete(Boolean.TRUE);
		}
	}

	/** One call for a single item, a batched call for several; completes every item's result. */
	private void send(List<Item> batch, Instant deadlineAt) {
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
		for (Item item : batch) {
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
				if (length == 1 && one.get(0) instanceof byte[] bytes && java.util.Arrays.equals(bytes, ITEM_ERROR)) {
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

	/** Programs with a queue (for tests). */
	int programs() {
		return this.slots.size();
	}

}
