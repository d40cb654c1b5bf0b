package io.starintel.lease.it.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.MutatingRequest;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import org.junit.jupiter.api.Test;


import static org.assertj.core.api.Assertions.assertThat;

/**
 * Differential test: the same random operation sequences (acquires, replays with the same and with a changed
 * body, renewals and releases by current and stale holders, admin operations on observed and stale leases, commit
 * authorizations, inspections and resolutions, and attached-key puts, replays, deletes, reads and lists by current
 * and stale holders) run in lock-step against the in-memory model and against Redis
 * must give the same typed results, modulo generated ids and timestamps. TTLs are long so time never decides;
 * expiry is covered separately with short TTLs.
 */
class RedisVersusModelDifferentialTests extends SharedRedisTests {

	private static final int SEQUENCES = 150;

	private static final int STEPS = 40;

	private final Set<String> seen = new TreeSet<>();

	@Test
	void redisGivesTheModelsResultsOnRandomSequences() {
		int steps = 0;
		for (int seed = 1; seed <= SEQUENCES; seed++) {
			steps += runSequence(seed);
		}
		assertThat(steps).isEqualTo(SEQUENCES * STEPS);
		// the sequences must actually reach every interesting outcome, or agreement proves little
		assertThat(this.seen).contains("lease_acquired", "lease_conflict", "lease_renewed", "lease_released",
				"lease_revoked", "lease_lost", "idempotency_conflict", "lease_commit_authorized", "lease_not_found",
				"lease_inspected", "replayed", "current=released", "current=revoked", "stale_lease",
				"token_below_high_water_mark", "attachment_stored", "attachment_read", "attachment_deleted",
				"attachments_listed", "attached_to_another_lease", "attachment_not_found");
	}

	private int runSequence(long seed) {
		String program = "p-" + UUID.randomUUID().toString().substring(0, 8);
		Side model = new Side(new InMemoryLeaseStore(java.time.Clock.systemUTC(), RedisServers.POLICY));
		Side redis = new Side(RedisServers.store(factory));
		Random random = new Random(seed);
		// attached-key steps are interleaved from their own random stream, so the lease steps stay as they were
		Random attach = new Random(-seed);
		for (int step = 0; step < STEPS; step++) {
			Step next = Step.random(random, program, model);
			compare(model, redis, next, seed, step);
			if (attach.nextInt(3) > 0) {
				compare(model, redis, Step.randomAttach(attach, program), seed, step);
			}
		}
		return STEPS;
	}

	private void compare(Side model, Side redis, Step next, long seed, int step) {
		String expected = model.apply(next);
		String actual = redis.apply(next);
		assertThat(actual).as("seed %d step %d (%s)", seed, step, next.kind).isEqualTo(expected);
		for (String word : expected.split(" ")) {
			this.seen.add(word.equals("replayed=true") ? "replayed" : word);
		}
	}

	/** One abstract step; concrete requests are built per side from that side's own leases and requests. */
	private record Step(Kind kind, LockIdentity identity, String owner, long ttlMs, int pick, String requestId) {

		private static final Kind[] LEASE_KINDS = { Kind.ACQUIRE, Kind.ACQUIRE_REPLAY, Kind.ACQUIRE_CHANGED_BODY,
				Kind.RENEW, Kind.RENEW_REPLAY, Kind.RELEASE, Kind.FORCE_RELEASE, Kind.REVOKE, Kind.AUTHORIZE,
				Kind.INSPECT, Kind.RESOLVE };

		private static final Kind[] ATTACH_KINDS = { Kind.ATTACH_PUT, Kind.ATTACH_PUT_AGAIN, Kind.ATTACH_PUT_REPLAY,
				Kind.ATTACH_DELETE, Kind.ATTACH_GET, Kind.ATTACH_LIST };

		static Step randomAttach(Random random, String program) {
			Kind kind = ATTACH_KINDS[random.nextInt(ATTACH_KINDS.length)];
			LockIdentity identity = LockIdentity.of("tenant-diff", program, "starintel-target",
					"t" + random.nextInt(3), "usernamegen", "default", null);
			return new Step(kind, identity, "owner-0", 60_000, random.nextInt(1 << 20), Identifiers.generate("request"));
		}

		static Step random(Random random, String program, Side model) {
			Kind kind = LEASE_KINDS[random.nextInt(LEASE_KINDS.length)];
			LockIdentity identity = LockIdentity.of("tenant-diff", program, "starintel-target",
					"t" + random.nextInt(3), "usernamegen", "default", null);
			String owner = "owner-" + random.nextInt(3);
			long ttl = random.nextBoolean() ? 60_000 : 90_000;
			return new Step(kind, identity, owner, ttl, random.nextInt(1 << 20), Identifiers.generate("request"));
		}

	}

	private enum Kind {

		ACQUIRE, ACQUIRE_REPLAY, ACQUIRE_CHANGED_BODY, RENEW, RENEW_REPLAY, RELEASE, FORCE_RELEASE, REVOKE, AUTHORIZE,
		INSPECT, RESOLVE, ATTACH_PUT, ATTACH_PUT_AGAIN, ATTACH_PUT_REPLAY, ATTACH_DELETE, ATTACH_GET, ATTACH_LIST

	}

	/** One store plus what it has handed out, in order of first appearance. */
	private static final class Side {

		private final LeaseStore store;

		private final List<LeaseRecord> leases = new ArrayList<>();

		private final List<AcquireRequest> acquires = new ArrayList<>();

		private final List<MutatingRequest> mutations = new ArrayList<>();

		private final Map<String, Long> maxTokens = new HashMap<>();

		private final List<AttachPutRequest> puts = new ArrayList<>();

		Side(LeaseStore store) {
			this.store = store;
		}

		String apply(Step step) {
			Instant deadline = Instant.now().plusSeconds(30);
			switch (step.kind) {
				case ACQUIRE:
					return acquire(new AcquireRequest(step.identity, step.requestId, deadline, owner(step.owner),
							step.ttlMs, 300_000, "execution_1", "job_1", "trace_1", LeaseMetadata.empty()));
				case ACQUIRE_REPLAY:
					return this.acquires.isEmpty() ? "none" : acquire(pick(this.acquires, step));
				case ACQUIRE_CHANGED_BODY:
					if (this.acquires.isEmpty()) {
						return "none";
					}
					AcquireRequest original = pick(this.acquires, step);
					return acquire(new AcquireRequest(original.identity(), original.requestId(), deadline,
							original.owner(), original.ttlMs() + 1_000, 300_000, "execution_1", "job_1", "trace_1",
							LeaseMetadata.empty()));
				case RENEW:
					return this.leases.isEmpty() ? "none"
							: mutate(new RenewRequest(pick(this.leases, step).handle(), step.requestId, deadline));
				case RENEW_REPLAY:
					return this.mutations.isEmpty() ? "none" : mutate(pick(this.mutations, step));
				case RELEASE:
					return this.leases.isEmpty() ? "none"
							: mutate(new ReleaseRequest(pick(this.leases, step).handle(), step.requestId, deadline));
				case FORCE_RELEASE:
				case REVOKE:
					if (this.leases.isEmpty()) {
						return "none";
					}
					LeaseRecord observed = pick(this.leases, step);
					Operation op = (step.kind == Kind.REVOKE) ? Operation.REVOKE : Operation.FORCE_RELEASE;
					return mutate(new AdminRequest(op, observed.identity(), step.requestId, deadline,
							observed.leaseId(), observed.fencingToken(), "prn_admin", "key_admin", "incident-7"));
				case AUTHORIZE:
					return this.leases.isEmpty() ? "none" : describe(this.store
						.authorizeCommit(new CommitRequest(pick(this.leases, step).handle(), "corr_1", deadline)));
				case INSPECT:
					return describe(this.store.inspect(InspectRequest.byIdentity(step.identity, "corr_1", deadline)));
				case ATTACH_PUT:
				case ATTACH_PUT_AGAIN:
					if (this.leases.isEmpty()) {
						return "none";
					}
					AttachPutRequest put = new AttachPutRequest(pick(this.leases, step).handle(), name(step),
							"v" + (step.pick % 5), step.requestId, deadline);
					this.puts.add(put);
					return describe(this.store.putAttached(put));
				case ATTACH_PUT_REPLAY:
					return this.puts.isEmpty() ? "none" : describe(this.store.putAttached(pick(this.puts, step)));
				case ATTACH_DELETE:
					return this.leases.isEmpty() ? "none" : describe(this.store.deleteAttached(
							new AttachDeleteRequest(pick(this.leases, step).handle(), name(step), step.requestId,
									deadline)));
				case ATTACH_GET:
					return describe(this.store.getAttached(
							new AttachGetRequest(step.identity.scope(), name(step), "corr_1", deadline)));
				case ATTACH_LIST:
					return this.leases.isEmpty() ? "none" : describe(this.store.listAttached(new AttachListRequest(
							step.identity.scope(), pick(this.leases, step).leaseId(), "corr_1", deadline)));
				default:
					if (this.mutations.isEmpty()) {
						return "none";
					}
					return describe(this.store.resolve(ResolveRequest.of(pick(this.mutations, step), deadline)));
			}
		}

		private String acquire(AcquireRequest request) {
			this.acquires.add(request);
			return mutate(request);
		}

		private String mutate(MutatingRequest request) {
			this.mutations.add(request);
			LeaseResult result;
			if (request instanceof AcquireRequest acquire) {
				result = this.store.acquire(acquire);
			}
			else if (request instanceof RenewRequest renew) {
				result = this.store.renew(renew);
			}
			else if (request instanceof ReleaseRequest release) {
				result = this.store.release(release);
			}
			else {
				AdminRequest admin = (AdminRequest) request;
				result = (admin.operation() == Operation.REVOKE) ? this.store.revoke(admin)
						: this.store.forceRelease(admin);
			}
			return describe(result);
		}

		/** The observable result without generated ids and timestamps: lease ids become symbols. */
		private String describe(LeaseResult result) {
			String lease = "-";
			if (result.lease() != null) {
				LeaseRecord record = result.lease();
				int symbol = symbol(record);
				String key = record.lockKey();
				long max = this.maxTokens.getOrDefault(key, 0L);
				boolean newToken = record.fencingToken() > max;
				this.maxTokens.put(key, Math.max(max, record.fencingToken()));
				lease = "L" + symbol + "/" + record.state().wireName() + "/" + record.owner().principalId()
						+ (newToken ? "/new-max-token" : "/known-token");
			}
			return result.code().wireName() + " " + result.reason().wireName() + " replayed=" + result.replayed()
					+ " current=" + Objects.toString(result.currentState() == null ? null
							: result.currentState().wireName())
					+ " lease=" + lease;
		}

		private static String name(Step step) {
			return "k" + ((step.pick >> 4) % 4);
		}

		/** An attached-key result without generated ids and timestamps: the owning lease becomes its symbol. */
		private String describe(AttachmentResult result) {
			String owner = "-";
			if (result.leaseId() != null) {
				owner = "?";
				for (int i = 0; i < this.leases.size(); i++) {
					if (this.leases.get(i).leaseId().equals(result.leaseId())) {
						owner = "L" + i;
					}
				}
			}
			return result.code().wireName() + " " + result.reason().wireName() + " replayed=" + result.replayed()
					+ " name=" + result.name() + " value=" + result.value() + " lease=" + owner + " names="
					+ result.names();
		}

		private int symbol(LeaseRecord record) {
			for (int i = 0; i < this.leases.size(); i++) {
				if (this.leases.get(i).leaseId().equals(record.leaseId())) {
					return i;
				}
			}
			this.leases.add(record);
			return this.leases.size() - 1;
		}

		private static LeaseOwner owner(String name) {
			return new LeaseOwner(name, "client_1", "key_1", "instance-" + name);
		}

		private static <T> T pick(List<T> list, Step step) {
			// favour recent entries so that current holders are picked often, stale ones sometimes
			int index = list.size() - 1 - (step.pick % Math.min(list.size(), 4));
			return list.get(index);
		}

	}

}
