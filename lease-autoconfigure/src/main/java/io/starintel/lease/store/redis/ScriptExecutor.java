package io.starintel.lease.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;

/**
 * Runs one lease script as exactly one EVALSHA (EVAL only after a NOSCRIPT reply) on the Lettuce connection of a
 * Spring Data Redis connection factory, waiting for the reply no longer than the request's deadline.
 *
 * <p>Contract: a command that could not be submitted (no connection, deadline already passed) is distinguished from
 * one that was submitted without a reply in time ({@link ScriptFailure.Kind#OUTCOME_UNKNOWN}); no Redis exception
 * leaves this class, and neither does a {@link LinkageError} of an incompatible driver (a Lettuce or Spring Data Redis
 * version whose API differs from the one compiled against): it is logged at ERROR once per executor and the call fails
 * closed like any other backend failure.
 *
 * <p>Only Lettuce API present in both Lettuce 6.x (Spring Boot 4.0) and 7.x (Spring Boot 4.1) is used: the open
 * check goes through {@code StatefulConnection.isOpen()}, not the commands' {@code isOpen()} that Lettuce 7 removed.
 */
final class ScriptExecutor {

	private static final Logger logger = LoggerFactory.getLogger(ScriptExecutor.class);

	private final RedisConnectionFactory connectionFactory;

	private final AtomicBoolean incompatibleDriverLogged = new AtomicBoolean();

	ScriptExecutor(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/** Runs the script and returns its reply (a list of bulk strings). */
	List<Object> run(LeaseScript script, Instant deadlineAt, List<String> keys, List<String> args)
			throws ScriptFailure {
		boolean[] submitted = new boolean[1];
		try {
			return runChecked(script, deadlineAt, keys, args, submitted);
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

	private List<Object> runChecked(LeaseScript script, Instant deadlineAt, List<String> keys, List<String> args,
			boolean[] submitted) throws ScriptFailure {
		long timeoutMs = deadlineAt.toEpochMilli() - System.currentTimeMillis();
		if (timeoutMs <= 0) {
			throw new ScriptFailure(ScriptFailure.Kind.DEADLINE_BEFORE_SUBMISSION, "deadline passed before submission");
		}
		RedisConnection connection = connect();
		try {
			RedisClusterAsyncCommands<byte[], byte[]> commands = nativeCommands(connection);
			if (!isOpen(commands)) {
				throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "connection not open");
			}
			byte[][] keyBytes = bytes(keys);
			byte[][] argBytes = bytes(args);
			try {
				submitted[0] = true;
				return await(commands.evalsha(script.sha(), ScriptOutputType.MULTI, keyBytes, argBytes), timeoutMs,
						script);
			}
			catch (NoScript ex) {
				long remaining = Math.max(1, deadlineAt.toEpochMilli() - System.currentTimeMillis());
				try {
					return await(commands.eval(script.text(), ScriptOutputType.MULTI, keyBytes, argBytes), remaining,
							script);
				}
				catch (NoScript impossible) {
					throw new ScriptFailure(ScriptFailure.Kind.OUTCOME_UNKNOWN, "NOSCRIPT after EVAL");
				}
			}
		}
		finally {
			closeQuietly(connection);
		}
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

	/** Whether the connection behind the commands is open (API present in Lettuce 6 and 7). */
	private static boolean isOpen(RedisClusterAsyncCommands<byte[], byte[]> commands) {
		if (commands instanceof RedisAsyncCommands<?, ?> standalone) {
			return standalone.getStatefulConnection().isOpen();
		}
		if (commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
			return cluster.getStatefulConnection().isOpen();
		}
		return true; // unknown command interface: the submission itself answers
	}

	private static List<Object> await(RedisFuture<List<Object>> future, long timeoutMs, LeaseScript script)
			throws ScriptFailure, NoScript {
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
			if (ex.getCause() instanceof RedisNoScriptException) {
				throw new NoScript();
			}
			logger.warn("Lease script {} failed: {}", script.fileName(), safeError(ex.getCause()));
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

	private static byte[][] bytes(List<String> values) {
		byte[][] out = new byte[values.size()][];
		for (int i = 0; i < out.length; i++) {
			out[i] = values.get(i).getBytes(StandardCharsets.UTF_8);
		}
		return out;
	}

	private static void closeQuietly(RedisConnection connection) {
		try {
			connection.close();
		}
		catch (RuntimeException ex) {
			logger.debug("Closing a lease backend connection failed: {}", ex.getClass().getSimpleName());
		}
	}

	/** The node did not have the script cached. */
	private static final class NoScript extends Exception {

		NoScript() {
			super(null, null, false, false);
		}

	}

}
