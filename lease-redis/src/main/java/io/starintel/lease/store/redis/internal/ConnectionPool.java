package io.starintel.lease.store.redis.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's own connections to one deployment, each lent to one call at a time: a call that waits for its replicas
 * ({@code WAIT} blocks the connection it is sent on until the replicas answer) keeps its loan until the wait is
 * answered and then holds up no other call, and no command of the application, which keeps using its own connections;
 * a call without a wait gives its loan back as soon as its commands are written, so that concurrent calls are
 * pipelined on one connection. Up to {@code max} connections are opened, each
 * asynchronously (a caller waits for one no longer than its deadline; one that arrives late is kept for the next
 * call); when all are lent, a call shares one (its commands queue behind the other call's, still in order).
 *
 * @param <C> the connection type
 */
final class ConnectionPool<C> {

	private static final Logger logger = LoggerFactory.getLogger(ConnectionPool.class);

	private final Supplier<CompletableFuture<C>> connector;

	private final Predicate<C> open;

	private final Consumer<C> closer;

	private final int max;

	private final ConcurrentLinkedDeque<C> idle = new ConcurrentLinkedDeque<>();

	private final List<C> all = new CopyOnWriteArrayList<>();

	private int opening;

	private final AtomicInteger next = new AtomicInteger();

	private volatile boolean closed;

	private volatile @Nullable CompletableFuture<C> lastOpen;

	private static final long OPEN_WARNING_INTERVAL_NS = TimeUnit.SECONDS.toNanos(10);

	/** When an opening's failure was last logged at WARN ({@link System#nanoTime()}; 0: never). */
	private volatile long lastOpenWarning;

	ConnectionPool(Supplier<CompletableFuture<C>> connector, Predicate<C> open, Consumer<C> closer, int max) {
		this.connector = connector;
		this.open = open;
		this.closer = closer;
		this.max = Math.max(1, max);
	}

	/** A connection lent to one call ({@code exclusive}) or shared with another call. */
	record Loan<C>(C connection, boolean exclusive) {
	}

	/**
	 * Lends an open connection, opening one when none is idle and fewer than the maximum exist.
	 * @throws ScriptFailure {@code NOT_SUBMITTED} when no open connection is available before the deadline
	 */
	Loan<C> borrow(long deadlineMs) throws ScriptFailure {
		if (this.closed) {
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "store closed");
		}
		C candidate = this.idle.pollFirst();
		if (candidate != null) {
			if (this.open.test(candidate)) {
				return new Loan<>(candidate, true); // the usual case: no count of the idle ones (a deque walk)
			}
			this.idle.offerLast(candidate); // reconnecting (Lettuce reconnects on its own): try each other one once
			int others = this.idle.size() - 1;
			for (int skipped = 0; skipped < others && (candidate = this.idle.pollFirst()) != null; skipped++) {
				if (this.open.test(candidate)) {
					return new Loan<>(candidate, true);
				}
				this.idle.offerLast(candidate);
			}
		}
		CompletableFuture<C> pending;
		boolean mine;
		synchronized (this) {
			if (this.all.size() + this.opening < this.max) {
				pending = startOpen();
				mine = true;
			}
			else {
				List<C> current = this.all;
				C closedOne = null;
				for (int i = 0; i < current.size(); i++) {
					C shared = current.get(Math.floorMod(this.next.getAndIncrement(), current.size()));
					if (this.open.test(shared)) {
						return new Loan<>(shared, false);
					}
					closedOne = shared;
				}
				if (closedOne != null) {
					// none is open: replace one rather than queue behind Lettuce's reconnect, whose back-off grows to
					// 30 s by default; a new connection also asks the sentinels for the primary again
					pending = replace(closedOne);
					mine = true;
				}
				else {
					// every connection there will be is still being opened: share the one that arrives
					pending = this.lastOpen;
					mine = false;
				}
			}
		}
		if (pending == null) {
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "no open connection");
		}
		try {
			return new Loan<>(await(pending, deadlineMs), mine);
		}
		catch (ScriptFailure ex) {
			if (mine) {
				// kept when it arrives: the next call finds it idle
				pending.thenAccept((connection) -> {
					if (!this.closed) {
						this.idle.offerLast(connection);
					}
				});
			}
			throw ex;
		}
	}

	/** Takes back a connection lent by {@link #borrow}. */
	void release(Loan<C> loan) {
		if (!loan.exclusive() || !this.all.contains(loan.connection())) {
			return; // shared, or replaced meanwhile (and closed)
		}
		if (this.closed) {
			this.closer.accept(loan.connection());
			return;
		}
		this.idle.offerFirst(loan.connection());
	}

	/**
	 * Closes a connection and keeps it from later calls (the next borrow opens another one): for a connection on
	 * which a reply did not come in time. The calls still waiting on it fail (their outcome is unknown).
	 */
	void retire(C connection) {
		boolean mine;
		synchronized (this) {
			mine = this.all.remove(connection);
			this.idle.remove(connection);
		}
		if (!mine) {
			return; // retired or replaced already
		}
		try {
			this.closer.accept(connection);
		}
		catch (RuntimeException ex) {
			logger.debug("Closing a lease store connection failed: {}", ex.getClass().getSimpleName());
		}
	}

	/**
	 * Keeps every connection from later calls at once (the next borrow opens another one) and closes each once
	 * {@code drained} completes for it (the commands already written on it are answered: their calls get their own
	 * replies, not a closed connection), or after {@code graceMs}: for connections on a node that is not a primary.
	 */
	void retireAll(Function<C, CompletionStage<?>> drained, long graceMs) {
		List<C> retired;
		synchronized (this) {
			retired = new ArrayList<>(this.all);
			this.all.clear();
			this.idle.clear();
		}
		for (C connection : retired) {
			CompletableFuture<?> done;
			try {
				done = drained.apply(connection).toCompletableFuture();
			}
			catch (RuntimeException ex) {
				done = CompletableFuture.completedFuture(null);
			}
			done.orTimeout(graceMs, TimeUnit.MILLISECONDS).whenComplete((answer, failure) -> closeQuietly(connection));
		}
	}

	private void closeQuietly(C connection) {
		try {
			this.closer.accept(connection);
		}
		catch (RuntimeException ex) {
			logger.debug("Closing a lease store connection failed: {}", ex.getClass().getSimpleName());
		}
	}

	/** Closes a connection that is not open (under the pool's lock) and starts opening its replacement. */
	private CompletableFuture<C> replace(C connection) {
		this.all.remove(connection);
		this.idle.remove(connection);
		try {
			this.closer.accept(connection);
		}
		catch (RuntimeException ex) {
			logger.debug("Closing a lease store connection failed: {}", ex.getClass().getSimpleName());
		}
		return startOpen();
	}

	/** Starts opening a connection (under the pool's lock); it joins {@link #all} when it arrives. */
	private CompletableFuture<C> startOpen() {
		this.opening++;
		CompletableFuture<C> future;
		try {
			future = this.connector.get();
		}
		catch (RuntimeException ex) {
			this.opening--;
			return CompletableFuture.failedFuture(ex);
		}
		CompletableFuture<C> registered = future.whenComplete((connection, failure) -> {
			synchronized (this) {
				this.opening--;
				if (connection != null && !this.closed) {
					this.all.add(connection);
				}
			}
			if (connection != null && this.closed) {
				this.closer.accept(connection);
			}
			if (connection == null) {
				warnOpenFailed(failure);
			}
		});
		this.lastOpen = registered;
		return registered;
	}

	/**
	 * A connection that could not be opened (server down, wrong credentials, unknown host): a WARN at most every
	 * 10 s per pool naming the cause's type, and whether the server refused the credentials (never the address, the
	 * user or the server's text); the calls that needed it answer {@code backend_unreachable}. Until 2026-12-07 this
	 * was a DEBUG line naming only the wrapper ({@code CompletionException}): a wrong password was invisible at INFO.
	 */
	private void warnOpenFailed(@Nullable Throwable failure) {
		long now = System.nanoTime();
		long last = this.lastOpenWarning;
		if (last != 0 && now - last < OPEN_WARNING_INTERVAL_NS) {
			logger.debug("Opening a lease store connection failed again: {}", cause(failure));
			return;
		}
		this.lastOpenWarning = now;
		logger.warn("Opening a lease store connection failed: {}; calls answer backend_unreachable until one opens "
				+ "(repeated failures are logged at DEBUG for 10 s)", cause(failure));
	}

	/** The innermost cause's type, and whether the server refused the client's credentials. */
	private static String cause(@Nullable Throwable failure) {
		if (failure == null) {
			return "unknown";
		}
		Throwable root = failure;
		boolean credentials = false;
		for (Throwable t = failure; t != null; t = (t.getCause() != t) ? t.getCause() : null) {
			root = t;
			String message = t.getMessage();
			credentials |= message != null && (message.startsWith("WRONGPASS") || message.startsWith("NOAUTH")
					|| message.startsWith("NOPERM"));
		}
		return root.getClass().getSimpleName() + (credentials ? " (the server refused the credentials)" : "");
	}

	private static <C> C await(CompletableFuture<C> future, long deadlineMs) throws ScriptFailure {
		try {
			return future.get(Math.max(1, deadlineMs - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException | ExecutionException ex) {
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "connecting");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "interrupted while connecting");
		}
	}

	/** Closes every connection; later borrows fail. */
	void close() {
		this.closed = true;
		for (C connection : this.all) {
			try {
				this.closer.accept(connection);
			}
			catch (RuntimeException ex) {
				logger.debug("Closing a lease store connection failed: {}", ex.getClass().getSimpleName());
			}
		}
		this.all.clear();
		this.idle.clear();
	}

	/**
	 * Ends the pool without closing its connections: their client was shut down, which closed them; later borrows
	 * fail.
	 */
	void abandon() {
		this.closed = true;
		this.all.clear();
		this.idle.clear();
	}

	/** The connections opened so far (for tests and warm-up). */
	int size() {
		return this.all.size();
	}

}
