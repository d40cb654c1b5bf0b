package io.starintel.lease.store.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.starintel.lease.core.ActivePrograms;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.store.redis.internal.ScriptExecutor;
import io.starintel.lease.store.redis.internal.ScriptFailure;

/**
 * The registry of programs with leases ({@code sweep.lua}'s {@code programs_touch} and {@code programs_list}), so that
 * the expiry sweeper finds every program with leases, not only the configured ones.
 *
 * <p>A successful acquire or renewal reports its program: at most once per {@link #TOUCH_INTERVAL} per program and
 * process, off the caller's thread (a bounded queue drained by one daemon thread, several programs per call). A
 * report that fails is retried by the program's next operation. A program is forgotten once it was not reported
 * within its horizon, the policy's maximum lifetime plus {@link #TOUCH_INTERVAL} and a margin: every lease of it has
 * then ended (a lease never outlives its maximum lifetime; a renewal reports again). After a failover the registry
 * may have lost entries: the next operation of each program reports it again within {@link #TOUCH_INTERVAL}.
 */
final class ProgramRegistry implements AutoCloseable {

	/** How often a process reports one program at most. */
	static final Duration TOUCH_INTERVAL = Duration.ofSeconds(30);

	/** The most programs reported per call. */
	static final int TOUCH_BATCH = 256;

	private static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);

	private final ScriptExecutor executor;

	private final Duration horizon;

	/** When this process last reported each program (nanoTime), absent while a report is pending or failed. */
	private final Map<ProgramScope, Long> reported = new ConcurrentHashMap<>();

	private final BlockingQueue<ProgramScope> pending = new ArrayBlockingQueue<>(4096);

	private final Thread worker;

	private volatile boolean running = true;

	ProgramRegistry(ScriptExecutor executor, Duration maximumLifetime) {
		this.executor = executor;
		this.horizon = maximumLifetime.plus(TOUCH_INTERVAL).plus(Duration.ofMinutes(5));
		this.worker = new Thread(this::drain, "starintel-lease-program-registry");
		this.worker.setDaemon(true);
		this.worker.start();
	}

	/** The registry member of a program: tenant SEP program. */
	static String member(ProgramScope scope) {
		return scope.tenantId() + "\u001f" + scope.programId();
	}

	/** Notes a lease operation of the program; reports it unless this process did within the interval. */
	void touch(ProgramScope scope) {
		Long last = this.reported.get(scope);
		long now = System.nanoTime();
		if (last != null && now - last < TOUCH_INTERVAL.toNanos()) {
			return;
		}
		if (this.reported.size() > 100_000) {
			this.reported.clear();
		}
		if (!replace(scope, last, now)) {
			return; // another thread queued it meanwhile
		}
		if (!this.pending.offer(scope)) {
			this.reported.remove(scope); // full: the next operation tries again
		}
	}

	private boolean replace(ProgramScope scope, Long last, long now) {
		return (last == null) ? this.reported.putIfAbsent(scope, now) == null : this.reported.replace(scope, last, now);
	}

	private void drain() {
		List<ProgramScope> batch = new ArrayList<>();
		while (this.running) {
			try {
				ProgramScope first = this.pending.poll(200, TimeUnit.MILLISECONDS);
				if (first == null) {
					continue;
				}
				batch.add(first);
				this.pending.drainTo(batch, TOUCH_BATCH - 1);
				Instant deadlineAt = Instant.now().plus(CALL_TIMEOUT);
				FunctionCall call = ProgramArguments.programsTouch(batch, deadlineAt);
				try {
					this.executor.run(call.function(), deadlineAt, call.keys(), call.args());
				}
				catch (ScriptFailure | RuntimeException ex) {
					batch.forEach(this.reported::remove); // reported again by their next operation
				}
				batch.clear();
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	/** The programs reported within the horizon, most recent first, at most limit. */
	ActivePrograms list(int limit, Instant deadlineAt) {
		FunctionCall call = ProgramArguments.programsList(this.horizon, Math.max(1, limit), deadlineAt);
		List<Object> reply;
		try {
			reply = this.executor.run(call.function(), deadlineAt, call.keys(), call.args());
		}
		catch (ScriptFailure failure) {
			return ActivePrograms.failure((failure.kind() == ScriptFailure.Kind.DEADLINE_BEFORE_SUBMISSION)
					? ActivePrograms.Status.DEADLINE_EXCEEDED : ActivePrograms.Status.BACKEND_UNAVAILABLE);
		}
		try {
			Instant decidedAt = Instant.ofEpochMilli(Long.parseLong(ReplyReader.text(reply, 1)));
			if (!"listed".equals(ReplyReader.text(reply, 0))) {
				return ActivePrograms.failure(ActivePrograms.Status.DEADLINE_EXCEEDED);
			}
			List<ProgramScope> programs = new ArrayList<>();
			for (int i = 3; i < reply.size(); i++) {
				String member = ReplyReader.text(reply, i);
				int sep = member.indexOf('\u001f');
				if (sep > 0) {
					try {
						programs.add(ProgramScope.of(member.substring(0, sep), member.substring(sep + 1)));
					}
					catch (RuntimeException ex) {
						// not a program this library wrote: skipped
					}
				}
			}
			return new ActivePrograms(ActivePrograms.Status.LISTED, programs, Long.parseLong(ReplyReader.text(reply, 2)),
					decidedAt);
		}
		catch (RuntimeException ex) {
			return ActivePrograms.failure(ActivePrograms.Status.BACKEND_UNAVAILABLE);
		}
	}

	@Override
	public void close() {
		this.running = false;
		this.worker.interrupt();
	}

}
