package io.starintel.lease.store.redis;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.Reason;
import io.starintel.lease.store.redis.internal.RedisKeys;
import io.starintel.lease.store.redis.internal.ScriptExecutor;
import io.starintel.lease.store.redis.internal.ScriptFailure;

/**
 * The fence functions of the lease function library on one Redis/Valkey deployment: the one call API the fenced
 * writers (checkpoints, the RabbitMQ consumer fence, CouchDB document marks) use, with the store's deadline rule,
 * replica acknowledgement, failover recovery and key layout. Get it from the store ({@link RedisLeaseStore#fenceCalls})
 * so that both share connections and settings, or {@link #create} one for fences without a store in the same
 * application.
 */
public final class FenceCalls {

	private final Supplier<ScriptExecutor> executor;

	private final CallSettings settings;

	FenceCalls(ScriptExecutor executor, CallSettings settings) {
		this(() -> executor, settings);
	}

	private FenceCalls(Supplier<ScriptExecutor> executor, CallSettings settings) {
		this.executor = executor;
		this.settings = settings;
	}

	/**
	 * Fence calls on the factory's deployment with default settings: every change acknowledged by the replicas the
	 * primary reports, automatic failover recovery under {@code recoveryPrincipal}.
	 */
	public static FenceCalls create(RedisConnectionFactory connectionFactory, String recoveryPrincipal) {
		Objects.requireNonNull(connectionFactory, "connectionFactory");
		return create(() -> connectionFactory, recoveryPrincipal);
	}

	/**
	 * As {@link #create(RedisConnectionFactory, String)}, with the factory looked up on the first call (a template
	 * whose factory is set later, as Spring wires it).
	 */
	public static FenceCalls create(Supplier<RedisConnectionFactory> connectionFactory, String recoveryPrincipal) {
		Supplier<ScriptExecutor> executor = new Supplier<>() {

			private volatile @Nullable ScriptExecutor created;

			@Override
			public synchronized ScriptExecutor get() {
				ScriptExecutor current = this.created;
				if (current == null) {
					current = new ScriptExecutor(Objects.requireNonNull(connectionFactory.get(), "connectionFactory"));
					this.created = current;
				}
				return current;
			}

		};
		return new FenceCalls(executor, CallSettings.of(ArgumentBytes.policy(LeasePolicy.defaults(),
				RedisLeaseStore.PHYSICAL_GRACE), FailoverRecovery.automatic(recoveryPrincipal),
				RedisLeaseStore.AUDIT_STREAM_LENGTH));
	}

	/**
	 * Runs one fence function (its keys and arguments in the order {@code fence.lua} lists them) and returns the
	 * reply's elements (bulk strings as {@code byte[]}).
	 * @throws FenceCallException when there is no usable reply
	 */
	public List<Object> run(FenceFunction function, Instant deadlineAt, byte[][] keys, byte[][] args)
			throws FenceCallException {
		try {
			return this.executor.get().run(function.function(), deadlineAt, keys, args);
		}
		catch (RuntimeException ex) {
			throw new FenceCallException(FenceCallException.Kind.NOT_SUBMITTED, Reason.BACKEND_UNREACHABLE,
					"no connection factory");
		}
		catch (ScriptFailure failure) {
			throw new FenceCallException(switch (failure.kind()) {
				case DEADLINE_BEFORE_SUBMISSION -> FenceCallException.Kind.DEADLINE_BEFORE_SUBMISSION;
				case NOT_SUBMITTED -> FenceCallException.Kind.NOT_SUBMITTED;
				case OUTCOME_UNKNOWN -> FenceCallException.Kind.OUTCOME_UNKNOWN;
			}, failure.reason(), failure.getMessage());
		}
	}

	/** The policy argument ({@code fence.lua}: checkpoint's last argument). */
	public byte[] policyArgument() {
		return this.settings.policy().clone();
	}

	/** The recovery argument: the automatic recovery's principal, or empty for manual recovery. */
	public byte[] recoveryArgument() {
		return this.settings.recovery().clone();
	}

	/** The audit stream's approximate bound, as an argument. */
	public byte[] auditLengthArgument() {
		return this.settings.auditLength().clone();
	}

	/** The key base {@code P{T}:} of a program. */
	public static String base(ProgramScope scope) {
		return new RedisKeys(scope).base();
	}

	/** The identity hash {@code P{T}:l:D} of a lock identity. */
	public static String identityKey(LockIdentity identity) {
		return RedisKeys.of(identity).identity(identity.keyDigest());
	}

	/** The identity hash of digest {@code D} in a program. */
	public static String identityKey(ProgramScope scope, String digest) {
		return new RedisKeys(scope).identity(digest);
	}

	/** The audit stream of a program. */
	public static String auditKey(ProgramScope scope) {
		return new RedisKeys(scope).audit();
	}

}
