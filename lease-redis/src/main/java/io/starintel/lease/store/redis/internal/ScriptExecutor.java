package io.starintel.lease.store.redis.internal;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.AsyncExecutions;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.protocol.CommandType;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Runs one function of the {@link LeaseLibrary} as exactly one FCALL on the Lettuce connection of a Spring Data
 * Redis connection factory, waiting for the reply no longer than the request's deadline. When the server answers
 * "Function not found" (a fresh, flushed or failed-over server), the library is loaded ({@code FUNCTION LOAD
 * REPLACE}, on every primary of a cluster) and the call is sent once more, as EVALSHA falls back to EVAL on
 * NOSCRIPT.
 *
 * <p>Contract: a command that could not be submitted (no connection, deadline already passed) is distinguished from
 * one that was submitted without a reply in time ({@link ScriptFailure.Kind#OUTCOME_UNKNOWN}); no Redis exception
 * leaves this class, and neither does a {@link LinkageError} of an incompatible driver: it is logged at ERROR once
 * per executor and the call fails closed like any other backend failure. Only Lettuce API present in Lettuce 6.x
 * and 7.x is used (the open check goes through {@code StatefulConnection.isOpen()}).
 */
public final class ScriptExecutor {

	private static final Logger logger = LoggerFactory.getLogger(ScriptExecutor.class);

	private final RedisConnectionFactory connectionFactory;

	private final AtomicBoolean incompatibleDriverLogged = new AtomicBoolean();

	/**
	 * Whether the factory hands out one shared native connection (Spring Boot's default): its commands are then
	 * kept between calls instead of asking the factory for a connection wrapper every time.
	 */
	private final boolean sharesNativeConnection;

	private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> shared;

	public ScriptExecutor(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		this.sharesNativeConnection = connectionFactory instanceof LettuceConnectionFactory lettuce
				&& lettuce.getShareNativeConnection();
	}

	/** Runs the function and returns its reply (a list of bulk strings). */
	public List<Object> run(LeaseLibrary.Function function, Instant deadlineAt, byte[][] keys, byte[][] args)
			throws ScriptFailure {
		boolean[] submitted = new boolean[1];
		try {
			return runChecked(function, deadlineAt.toEpochMilli(), keys, args, submitted);
		}
		catch (LinkageError ex) {
			// contract: no Error from the backend path reaches a user; fail closed with a typed failure
			if (this.incompatibleDriverLogged.compareAndSet(false, true)) {
				logger.error("Lease backend driver is incompatible ({}: {}); every lease operation fails closed until "
						+ "the Lettuce/Spring Data Redis versions match the ones this library supports",
						ex.getClass().getSimpleName(), ex.getMessage());
			}
			throw new ScriptFailure(submitted[0] ? ScriptFailure.Kind.OUTCOME_UNKNOWN : ScriptFailure.Kind.NOT_SUBMITTED,
					"incompatible driver");
		}
	}

	private List<Object> runChecked(LeaseLibrary.Function function, long deadlineMs, byte[][] keys, byte[][] args,
			boolean[] submitted) throws ScriptFailure {
		long timeoutMs = deadlineMs - System.currentTimeMillis();
		if (timeoutMs <= 0) {
			throw new ScriptFailure(ScriptFailure.Kind.DEADLINE_BEFORE_SUBMISSION, "deadline passed before submission");
		}
		RedisClusterAsyncCommands<byte[], byte[]> cached = this.shared;
		if (cached != null && LettuceConnections.isOpen(cached)) {
			// the factory's shared native connection, kept: no connection wrapper and no factory lock per call
			return call(cached, function, deadlineMs, timeoutMs, keys, args, submitted);
		}
		RedisConnection connection = connect();
		try {
			RedisClusterAsyncCommands<byte[], byte[]> commands = nativeCommands(connection);
			if (!LettuceConnections.isOpen(commands)) {
				throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "connection not open");
			}
			if (this.sharesNativeConnection) {
				this.shared = commands; // replaced when the factory resets it (the old one is then closed)
			}
			return call(commands, function, deadlineMs, timeoutMs, keys, args, submitted);
		}
		finally {
			closeQuietly(connection);
		}
	}

	private static List<Object> call(RedisClusterAsyncCommands<byte[], byte[]> commands,
			LeaseLibrary.Function function, long deadlineMs, long timeoutMs, byte[][] keys, byte[][] args,
			boolean[] submitted) throws ScriptFailure {
		try {
			submitted[0] = true;
			return await(fcall(commands, function, keys, args), timeoutMs, function);
		}
		catch (FunctionNotFound ex) {
			load(commands, deadlineMs);
			long remaining = Math.max(1, deadlineMs - System.currentTimeMillis());
			try {
				return await(fcall(commands, function, keys, args), remaining, function);
			}
			catch (FunctionNotFound again) {
				throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, "function not found after loading");
			}
		}
	}

	/**
	 * {@code FCALL function numkeys keys... args...}, the command Lettuce's own {@code fcall} builds (keys added as
	 * keys, so a cluster routes it by the first key's slot), with the flat reply output.
	 */
	private static RedisFuture<List<Object>> fcall(RedisClusterAsyncCommands<byte[], byte[]> commands,
			LeaseLibrary.Function function, byte[][] keys, byte[][] args) {
		return commands.dispatch(CommandType.FCALL, new FlatReplyOutput(), new FcallArgs(function, keys, args));
	}

	/** FUNCTION LOAD REPLACE on the server, or on every primary of a cluster. The call itself never mutated. */
	private static void load(RedisClusterAsyncCommands<byte[], byte[]> commands, long deadlineMs)
			throws ScriptFailure {
		try {
			if (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
				AsyncExecutions<String> executions = cluster.upstream().commands().functionLoad(LeaseLibrary.CODE, true);
				for (CompletionStage<String> stage : executions) {
					waitFor(stage.toCompletableFuture(), deadlineMs);
				}
			}
			else {
				waitFor(commands.functionLoad(LeaseLibrary.CODE, true), deadlineMs);
			}
			logger.info("Loaded the lease function library {}", LeaseLibrary.NAME);
		}
		catch (TimeoutException | ExecutionException | RuntimeException ex) {
			logger.warn("Loading the lease function library failed: {}", safeError(ex));
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, "function library not loaded");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, "interrupted while loading the library");
		}
	}

	private static void waitFor(Future<String> future, long deadlineMs)
			throws InterruptedException, ExecutionException, TimeoutException {
		future.get(Math.max(1, deadlineMs - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
	}

	private RedisConnection connect() throws ScriptFailure {
		try {
			return this.connectionFactory.getConnection();
		}
		catch (RuntimeException ex) {
			logger.debug("Lease backend connection failed: {}", ex.getClass().getSimpleName());
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "no connection");
		}
	}

	@SuppressWarnings("unchecked")
	private static RedisClusterAsyncCommands<byte[], byte[]> nativeCommands(RedisConnection connection)
			throws ScriptFailure {
		if (!(connection instanceof LettuceConnection lettuce)) {
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "not a Lettuce connection");
		}
		try {
			return lettuce.getNativeConnection();
		}
		catch (RuntimeException ex) {
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "no native connection");
		}
	}

	private static List<Object> await(RedisFuture<List<Object>> future, long timeoutMs,
			LeaseLibrary.Function function) throws ScriptFailure, FunctionNotFound {
		try {
			return future.get(timeoutMs, TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			future.cancel(false);
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, "no reply before the deadline");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			future.cancel(false);
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, "interrupted while awaiting the reply");
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause != null && String.valueOf(cause.getMessage()).contains("Function not found")) {
				throw new FunctionNotFound();
			}
			logger.warn("Lease function {} failed: {}", function.functionName(), safeError(cause));
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, "no usable reply");
		}
		catch (RuntimeException ex) {
			throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, "no usable reply");
		}
	}

	/** The error class and the first word of its message (an error code like BUSY or ERR), never key material. */
	private static String safeError(Throwable cause) {
		if (cause == null) {
			return "unknown";
		}
		String message = String.valueOf(cause.getMessage());
		int space = message.indexOf(' ');
		return cause.getClass().getSimpleName() + " " + ((space > 0) ? message.substring(0, space) : message);
	}

	private static void closeQuietly(RedisConnection connection) {
		try {
			connection.close();
		}
		catch (RuntimeException ex) {
			logger.debug("Closing a lease backend connection failed: {}", ex.getClass().getSimpleName());
		}
	}

	/** The server does not have the library (yet). */
	private static final class FunctionNotFound extends Exception {

		FunctionNotFound() {
			super(null, null, false, false);
		}

	}

}
