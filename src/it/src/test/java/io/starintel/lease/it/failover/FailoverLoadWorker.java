package io.starintel.lease.it.failover;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.MutatingRequest;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.it.failover.FailoverEvent.Op;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.slf4j.LoggerFactory;

/**
 * One worker JVM of the failover load harness ({@link FailoverLoadTests} starts 2-4 of them): holder threads run
 * acquire, commit authorization (the "commit"), renew, commit, release over a shared set of targets, and in one
 * worker an admin thread revokes whatever lease it finds; every call and its answer goes to the worker's history
 * file ({@link FailoverEvent}). An outcome-unknown mutation is resolved by request id (as the contract asks) and the
 * resolution recorded. A few holders pause past their TTL before committing (they must be refused), and some
 * (silent holders) hold a 10 s lease and say nothing for 2-4 s before their first commit: the admin may revoke the
 * lease meanwhile, and a failover may bring it back.
 *
 * <p>Run with {@code java -cp <test classpath> io.starintel.lease.it.failover.FailoverLoadWorker <properties>}:
 * {@code worker}, {@code mode} ({@code sentinel}: {@code sentinel.ports}; {@code cluster}: {@code cluster.nodes}),
 * {@code programs}, {@code targets} (per program), {@code threads}, {@code admin}, {@code history},
 * {@code ready} and {@code stop} (files), {@code max.seconds}, {@code parent.pid} (the worker stops when that
 * process is gone).
 */
public final class FailoverLoadWorker {

	static final Duration TTL = Duration.ofSeconds(3);

	static final Duration DEADLINE = Duration.ofSeconds(2);

	/** The TTL of a silent holder's lease: it outlives the holder's silence. */
	static final Duration SILENT_TTL = Duration.ofSeconds(10);

	private final String worker;

	private final RedisLeaseStore store;

	private final List<LockIdentity> targets;

	private final HistoryWriter history;

	private final AtomicLong seq = new AtomicLong();

	private volatile boolean stopping;

	private FailoverLoadWorker(String worker, RedisLeaseStore store, List<LockIdentity> targets,
			HistoryWriter history) {
		this.worker = worker;
		this.store = store;
		this.targets = targets;
		this.history = history;
	}

	public static void main(String[] args) throws Exception {
		((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
		Properties properties = new Properties();
		try (Reader reader = Files.newBufferedReader(Path.of(args[0]))) {
			properties.load(reader);
		}
		String worker = properties.getProperty("worker");
		List<LockIdentity> targets = new ArrayList<>();
		int perProgram = Integer.parseInt(properties.getProperty("targets"));
		for (String program : properties.getProperty("programs").split(",")) {
			for (int i = 0; i < perProgram; i++) {
				targets.add(FailoverRequests.identity(program, "target-" + i));
			}
		}
		FailoverClients.Client client = "cluster".equals(properties.getProperty("mode"))
				? FailoverClients.cluster(List.of(properties.getProperty("cluster.nodes").split(",")))
				: FailoverClients.sentinel(LocalSentinel.MASTER, Arrays.stream(properties.getProperty("sentinel.ports")
					.split(",")).map(Integer::valueOf).toList());
		Path stop = Path.of(properties.getProperty("stop"));
		long maxNanos = Duration.ofSeconds(Long.parseLong(properties.getProperty("max.seconds"))).toNanos();
		try (HistoryWriter history = new HistoryWriter(Path.of(properties.getProperty("history")))) {
			FailoverLoadWorker load = new FailoverLoadWorker(worker, FailoverStores.store(client.factory()), targets,
					history);
			load.warmUp();
			Files.writeString(Path.of(properties.getProperty("ready")), worker);
			List<Thread> threads = new ArrayList<>();
			int holders = Integer.parseInt(properties.getProperty("threads"));
			for (int i = 0; i < holders; i++) {
				String owner = worker + "t" + i;
				threads.add(new Thread(() -> load.hold(owner), owner));
			}
			if (Boolean.parseBoolean(properties.getProperty("admin"))) {
				threads.add(new Thread(load::administer, worker + "-admin"));
			}
			threads.forEach(Thread::start);
			long started = System.nanoTime();
			ProcessHandle parent = ProcessHandle.of(Long.parseLong(properties.getProperty("parent.pid")))
				.orElse(ProcessHandle.current());
			// stop when asked, after the maximum time, or when the test JVM is gone
			while (!Files.exists(stop) && System.nanoTime() - started < maxNanos && parent.isAlive()) {
				Thread.sleep(100);
			}
			load.stopping = true;
			for (Thread thread : threads) {
				thread.join(Duration.ofSeconds(30).toMillis());
			}
		}
		finally {
			client.close();
		}
		System.exit(0);
	}

	/** Loads the function library everywhere the targets live (a read on every target, generous deadline). */
	private void warmUp() {
		for (LockIdentity target : this.targets) {
			for (int attempt = 0; attempt < 30; attempt++) {
				LeaseResult result = this.store.inspect(FailoverRequests.inspect(target, Duration.ofSeconds(10)));
				if (result.code() == ResultCode.LEASE_INSPECTED || result.code() == ResultCode.LEASE_NOT_FOUND) {
					break;
				}
				sleep(500);
			}
		}
	}

	/** A holder: acquire, then twice (commit, renew), then release; sometimes paused past the TTL. */
	private void hold(String owner) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		while (!this.stopping) {
			LockIdentity target = this.targets.get(random.nextInt(this.targets.size()));
			// a silent holder: a long lease whose holder says nothing for a few seconds (while the admin may revoke
			// it and a failover may bring it back), then commits
			boolean silent = random.nextInt(100) < 10;
			AcquireRequest acquire = FailoverRequests.acquire(target, owner, silent ? SILENT_TTL : TTL, DEADLINE);
			LeaseResult acquired = mutate(Op.ACQUIRE, acquire, null, () -> this.store.acquire(acquire));
			if (acquired.code() != ResultCode.LEASE_ACQUIRED) {
				sleep((acquired.code() == ResultCode.LEASE_CONFLICT) ? random.nextLong(20, 120) : 100);
				continue;
			}
			LeaseRecord lease = acquired.lease();
			boolean lost = false;
			for (int step = 0; step < 2 && !lost && !this.stopping; step++) {
				sleep(random.nextLong(0, 150));
				if (silent && step == 0) {
					sleep(random.nextLong(2000, 4000));
				}
				else if (random.nextInt(100) < 3) {
					sleep(TTL.toMillis() + 500); // a paused holder: its commit and renewal must be refused
				}
				LeaseResult commit = record(Op.AUTHORIZE, target, "-", owner, lease,
						() -> this.store.authorizeCommit(FailoverRequests.commit(lease, DEADLINE)));
				lost = commit.code() == ResultCode.LEASE_LOST;
				if (!lost) {
					RenewRequest renew = FailoverRequests.renew(lease, DEADLINE);
					lost = mutate(Op.RENEW, renew, lease, () -> this.store.renew(renew)).code() == ResultCode.LEASE_LOST;
				}
			}
			if (!lost) {
				ReleaseRequest release = FailoverRequests.release(lease, DEADLINE);
				mutate(Op.RELEASE, release, lease, () -> this.store.release(release));
			}
		}
	}

	/** The admin: every few hundred ms, revoke the active lease of a random target, if there is one. */
	private void administer() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		while (!this.stopping) {
			sleep(random.nextLong(150, 400));
			LockIdentity target = this.targets.get(random.nextInt(this.targets.size()));
			LeaseResult inspected = this.store.inspect(FailoverRequests.inspect(target, DEADLINE));
			LeaseRecord lease = inspected.lease();
			if (inspected.code() != ResultCode.LEASE_INSPECTED || lease == null || lease.state() != LeaseState.ACTIVE) {
				continue;
			}
			AdminRequest revoke = FailoverRequests.admin(Operation.REVOKE, target, lease.leaseId(),
					lease.fencingToken(), DEADLINE);
			mutate(Op.REVOKE, revoke, lease, () -> this.store.revoke(revoke));
		}
	}

	/** A mutation, recorded; when its outcome is unknown, resolved by request id (each attempt recorded). */
	private LeaseResult mutate(Op op, MutatingRequest request, LeaseRecord lease, Supplier<LeaseResult> call) {
		LeaseResult result = record(op, request.identity(), request.requestId(), request.principalId(), lease, call);
		for (int attempt = 0; attempt < 5 && result.code() == ResultCode.LEASE_OUTCOME_UNKNOWN; attempt++) {
			sleep(300);
			LeaseResult resolved = record(Op.RESOLVE, request.identity(), request.requestId(), request.principalId(),
					lease, () -> this.store.resolve(ResolveRequest.of(request, FailoverRequests.in(DEADLINE))), op);
			if (resolved.code() != ResultCode.LEASE_OUTCOME_UNKNOWN
					&& resolved.code() != ResultCode.LEASE_BACKEND_UNAVAILABLE) {
				// resolved: a success, or lease_not_found (it never happened)
				return resolved.code().isSuccess() ? resolved : LeaseResult.failure(ResultCode.LEASE_LOST,
						resolved.reason(), null);
			}
		}
		return result;
	}

	private LeaseResult record(Op op, LockIdentity target, String requestId, String principal, LeaseRecord lease,
			Supplier<LeaseResult> call) {
		return record(op, target, requestId, principal, lease, call, null);
	}

	private LeaseResult record(Op op, LockIdentity target, String requestId, String principal, LeaseRecord lease,
			Supplier<LeaseResult> call, Op ref) {
		long invoke = System.nanoTime();
		LeaseResult result;
		try {
			result = call.get();
		}
		catch (RuntimeException ex) {
			// the store must not throw; record it as what it is, a failure of the harness's expectations
			result = LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, io.starintel.lease.core.Reason.NONE,
					null);
			System.err.println(this.worker + ": " + op + " threw " + ex);
		}
		long ack = System.nanoTime();
		LeaseRecord answered = result.lease();
		LeaseRecord about = (answered != null) ? answered : lease;
		String correlation = (op == Op.AUTHORIZE) ? "corr-" + this.worker + "-" + this.seq.get() : requestId;
		this.history.add(new FailoverEvent(this.worker, this.seq.getAndIncrement(), op, label(target), correlation,
				principal, (about != null) ? about.leaseId() : FailoverEvent.NONE,
				(about != null) ? about.fencingToken() : -1, result.code().wireName(), result.reason().wireName(),
				invoke, ack, (result.decidedAt() != null) ? result.decidedAt().toEpochMilli() : -1,
				(answered != null) ? answered.expiresAt().toEpochMilli() : -1,
				(ref != null) ? ref.name() : FailoverEvent.NONE));
		return result;
	}

	/** The history's name of a target: {@code program:target}. */
	static String label(LockIdentity identity) {
		return identity.programId() + ":" + identity.targetId();
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
