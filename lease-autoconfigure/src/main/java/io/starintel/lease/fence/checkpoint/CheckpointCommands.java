package io.starintel.lease.fence.checkpoint;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.core.script.RedisScript;

import io.starintel.lease.store.redis.internal.LettuceConnections;

/**
 * Runs one checkpoint script (EVALSHA, EVAL after NOSCRIPT) on the Lettuce connection and waits no longer than the
 * request's deadline, independent of the client's command timeout. Distinguishes "nothing was sent"
 * ({@link Kind#NOT_SENT}, {@link Kind#DEADLINE_BEFORE_SUBMISSION}) from "sent, no answer" ({@link Kind#UNKNOWN}).
 * No Redis exception leaves this class.
 */
final class CheckpointCommands {

	private static final Logger logger = LoggerFactory.getLogger(CheckpointCommands.class);

	private final RedisConnectionFactory factory;

	CheckpointCommands(RedisConnectionFactory factory) {
		this.factory = factory;
	}

	List<Object> run(RedisScript<?> script, Instant deadline, List<String> keys, List<String> args) throws Failure {
		long timeoutMs = deadline.toEpochMilli() - System.currentTimeMillis();
		if (timeoutMs <= 0) {
			throw new Failure(Kind.DEADLINE_BEFORE_SUBMISSION);
		}
		RedisConnection connection;
		try {
			connection = this.factory.getConnection();
		}
		catch (RuntimeException ex) {
			logger.debug("Checkpoint backend connection failed: {}", ex.getClass().getSimpleName());
			throw new Failure(Kind.NOT_SENT);
		}
		try {
			RedisClusterAsyncCommands<byte[], byte[]> commands = commands(connection);
			byte[][] keyBytes = bytes(keys);
			byte[][] argBytes = bytes(args);
			try {
				return await(commands.evalsha(script.getSha1(), ScriptOutputType.MULTI, keyBytes, argBytes), deadline);
			}
			catch (NoScript ex) {
				try {
					return await(commands.eval(script.getScriptAsString(), ScriptOutputType.MULTI, keyBytes, argBytes),
							deadline);
				}
				catch (NoScript impossible) {
					throw new Failure(Kind.UNKNOWN);
				}
			}
		}
		finally {
			try {
				connection.close();
			}
			catch (RuntimeException ex) {
				logger.debug("Closing a checkpoint connection failed: {}", ex.getClass().getSimpleName());
			}
		}
	}

	@SuppressWarnings("unchecked")
	private static RedisClusterAsyncCommands<byte[], byte[]> commands(RedisConnection connection) throws Failure {
		try {
			if (connection instanceof LettuceConnection lettuce) {
				RedisClusterAsyncCommands<byte[], byte[]> commands = lettuce.getNativeConnection();
				if (LettuceConnections.isOpen(commands)) {
					return commands;
				}
			}
		}
		catch (RuntimeException | LinkageError ex) {
			// LinkageError: an incompatible driver fails closed like an unreachable backend (nothing was sent)
			logger.debug("No native checkpoint connection: {}", ex.getClass().getSimpleName());
		}
		throw new Failure(Kind.NOT_SENT);
	}

	private static List<Object> await(RedisFuture<List<Object>> future, Instant deadline) throws Failure, NoScript {
		long remaining = Math.max(1, deadline.toEpochMilli() - System.currentTimeMillis());
		try {
			return future.get(remaining, TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			future.cancel(false);
			throw new Failure(Kind.UNKNOWN);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			future.cancel(false);
			throw new Failure(Kind.UNKNOWN);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RedisNoScriptException) {
				throw new NoScript();
			}
			logger.warn("Checkpoint script failed: {}",
					(ex.getCause() != null) ? ex.getCause().getClass().getSimpleName() : "unknown");
			throw new Failure(Kind.UNKNOWN);
		}
		catch (RuntimeException ex) {
			throw new Failure(Kind.UNKNOWN);
		}
	}

	private static byte[][] bytes(List<String> values) {
		byte[][] out = new byte[values.size()][];
		for (int i = 0; i < out.length; i++) {
			out[i] = values.get(i).getBytes(StandardCharsets.UTF_8);
		}
		return out;
	}

	/** What is known about a call without a reply. */
	enum Kind {

		/** The deadline passed before submission: nothing was sent. */
		DEADLINE_BEFORE_SUBMISSION,
		/** No connection: nothing was sent. */
		NOT_SENT,
		/** Sent (or maybe sent) without a usable reply before the deadline. */
		UNKNOWN

	}

	static final class Failure extends Exception {

		private final Kind kind;

		Failure(Kind kind) {
			super(kind.name(), null, false, false);
			this.kind = kind;
		}

		Kind kind() {
			return this.kind;
		}

	}

	private static final class NoScript extends Exception {

		NoScript() {
			super(null, null, false, false);
		}

	}

}
