package io.starintel.lease.it.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.redis.internal.RedisKeys;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Attached keys against a real Redis (and, in {@link ValkeyAttachedKeysTests}, Valkey): the ending transition and
 * the deletion of a lease's keys are one atomic step, observed from other threads and by reading the server's keys
 * directly. Each test works in its own program (hash tag).
 */
class RedisAttachedKeysTests extends SharedRedisTests {

	private RedisLeaseStore store;

	private StringRedisTemplate redis;

	private String program;

	@BeforeEach
	void setUp() {
		this.store = RedisServers.store(factory);
		this.redis = new StringRedisTemplate(factory);
		this.program = "p-" + UUID.randomUUID().toString().substring(0, 8);
	}

	private LockIdentity identity(String target) {
		return LockIdentity.of("tenant-attach", this.program, "starintel-target", target, "usernamegen", "default",
				null);
	}

	private ProgramScope scope() {
		return identity("t").scope();
	}

	private static Instant deadline() {
		return Instant.now().plusSeconds(30);
	}

	private LeaseRecord acquire(String target, String owner, long ttlMs) {
		LeaseResult result = this.store.acquire(new AcquireRequest(identity(target), Identifiers.generate("request"),
				deadline(), new LeaseOwner(owner, "client_1", "key_1", "instance-" + owner), ttlMs, 300_000,
				Identifiers.generate("execution"), "job_1", "trace_1", LeaseMetadata.empty()));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

	private AttachmentResult put(LeaseRecord lease, String name, String value) {
		return this.store.putAttached(new AttachPutRequest(lease.handle(), name, value,
				Identifiers.generate("request"), deadline()));
	}

	private AttachmentResult get(String name) {
		return this.store.getAttached(new AttachGetRequest(scope(), name, "corr_1", deadline()));
	}

	private AttachmentResult list(LeaseRecord lease) {
		return this.store.listAttached(new AttachListRequest(scope(), lease.leaseId(), "corr_1", deadline()));
	}

	/** Attached-key keys of this program in the server, read directly (SCAN, no script). */
	private long storedKeys(String kind) {
		String pattern = new RedisKeys(scope()).base() + kind + ":*";
		return this.redis.execute((RedisCallback<Long>) (connection) -> {
			long count = 0;
			try (Cursor<byte[]> cursor = connection.keyCommands()
				.scan(ScanOptions.scanOptions().match(pattern).count(1000).build())) {
				while (cursor.hasNext()) {
					cursor.next();
					count++;
				}
			}
			return count;
		});
	}

	private long serverMillis() {
		return this.redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
	}

	private void awaitServerTimePast(Instant instant) {
		await().atMost(Duration.ofSeconds(20))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> serverMillis() > instant.toEpochMilli());
	}

	@Test
	void revokeRacingPutWithLeaseLeavesNoKeyBehind() throws Exception {
		LeaseRecord lease = acquire("t1", "alice", 60_000);
		int writers = 4;
		ExecutorService pool = Executors.newFixedThreadPool(writers);
		CountDownLatch someStored = new CountDownLatch(40);
		Set<String> stored = ConcurrentHashMap.newKeySet();
		Set<String> attempted = ConcurrentHashMap.newKeySet();
		AtomicInteger unexpected = new AtomicInteger();
		List<Future<?>> futures = new ArrayList<>();
		try {
			for (int w = 0; w < writers; w++) {
				int writer = w;
				futures.add(pool.submit(() -> {
					long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
					for (int i = 0; System.nanoTime() < until; i++) {
						String name = "w" + writer + "-k" + i;
						attempted.add(name);
						AttachmentResult result = put(lease, name, "v" + i);
						if (result.code() == ResultCode.ATTACHMENT_STORED) {
							stored.add(name);
							someStored.countDown();
						}
						else if (result.code() == ResultCode.LEASE_LOST) {
							return;
						}
						else {
							unexpected.incrementAndGet();
						}
					}
				}));
			}
			assertThat(someStored.await(20, TimeUnit.SECONDS)).isTrue();
			LeaseResult revoked = this.store.revoke(new AdminRequest(Operation.REVOKE, lease.identity(),
					Identifiers.generate("request"), deadline(), lease.leaseId(), lease.fencingToken(), "prn_admin",
					"key_admin", "race test"));
			assertThat(revoked.code()).isEqualTo(ResultCode.LEASE_REVOKED);
			for (Future<?> future : futures) {
				future.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(unexpected).hasValue(0);
		assertThat(stored).isNotEmpty();
		for (String name : attempted) {
			assertThat(get(name).code()).as(name).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		}
		assertThat(storedKeys("kv")).isZero();
		assertThat(storedKeys("att")).isZero();
		System.out.printf("[attach] %s revoke raced %d writers: %d puts stored before the revoke, %d attempted, 0 left%n",
				server, writers, stored.size(), attempted.size());
	}

	@Test
	void aReaderPollingWhileTheLeaseExpiresNeverSeesAPartialSet() throws Exception {
		LeaseRecord lease = acquire("t1", "alice", 1_500);
		int keys = 200;
		for (int i = 0; i < keys; i++) {
			assertThat(put(lease, "k" + i, "v" + i).code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		}
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			Future<int[]> lister = pool.submit(() -> {
				int full = 0;
				long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
				while (System.nanoTime() < until) {
					AttachmentResult listed = list(lease);
					if (listed.code() == ResultCode.LEASE_NOT_FOUND) {
						return new int[] { full, 0 };
					}
					assertThat(listed.code()).isEqualTo(ResultCode.ATTACHMENTS_LISTED);
					assertThat(listed.names()).hasSize(keys);
					full++;
				}
				return new int[] { full, 1 };
			});
			Future<int[]> reader = pool.submit(() -> {
				// reads one key after another: once one is gone, every later read finds none either
				int read = 0;
				boolean gone = false;
				long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
				for (int i = 0; System.nanoTime() < until; i = (i + 1) % keys) {
					AttachmentResult result = get("k" + i);
					if (result.code() == ResultCode.ATTACHMENT_READ) {
						assertThat(gone).as("a key read after another was gone").isFalse();
						assertThat(result.value()).isEqualTo("v" + i);
						read++;
					}
					else {
						assertThat(result.code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
						if (gone && i == 0) {
							return new int[] { read, 0 };
						}
						gone = true;
					}
				}
				return new int[] { read, 1 };
			});
			int[] listed = lister.get(30, TimeUnit.SECONDS);
			int[] read = reader.get(30, TimeUnit.SECONDS);
			assertThat(listed[1]).as("the lister saw the lease end").isZero();
			assertThat(read[1]).as("the reader saw the keys go").isZero();
			assertThat(listed[0]).isPositive();
			assertThat(storedKeys("kv")).isZero();
			assertThat(storedKeys("att")).isZero();
			System.out.printf("[attach] %s expiry under polling: %d complete lists of %d keys, %d reads, then none%n",
					server, listed[0], keys, read[0]);
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void aLateCleanupNeverTouchesASuccessorsKeys() {
		LeaseRecord first = acquire("t1", "alice", 3_000);
		assertThat(put(first, "shared", "first").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(put(first, "only-first", "first").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		ReleaseRequest lateRelease = new ReleaseRequest(first.handle(), Identifiers.generate("request"), deadline());
		awaitServerTimePast(first.expiresAt());
		LeaseRecord successor = acquire("t1", "bob", 60_000);
		assertThat(put(successor, "shared", "second").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(put(successor, "only-second", "second").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		// every late cleanup path of the first lease: release, revoke, force-release, delete, put
		assertThat(this.store.release(lateRelease).code()).isEqualTo(ResultCode.LEASE_LOST);
		for (Operation op : List.of(Operation.REVOKE, Operation.FORCE_RELEASE)) {
			assertThat(this.store.revoke(new AdminRequest(op, first.identity(), Identifiers.generate("request"),
					deadline(), first.leaseId(), first.fencingToken(), "prn_admin", "key_admin", "late")).code())
				.isEqualTo(ResultCode.LEASE_LOST);
		}
		assertThat(this.store.deleteAttached(new AttachDeleteRequest(first.handle(), "shared",
				Identifiers.generate("request"), deadline())).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(put(first, "shared", "late").code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(get("shared").value()).isEqualTo("second");
		assertThat(get("shared").leaseId()).isEqualTo(successor.leaseId());
		assertThat(get("only-first").code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		assertThat(list(successor).names()).containsExactly("only-second", "shared");
		assertThat(storedKeys("kv")).isEqualTo(2);
		assertThat(storedKeys("att")).isEqualTo(1);
	}

	@Test
	void tenThousandAttachedKeysAreDeletedInOneTransition() {
		LeaseRecord lease = acquire("t1", "alice", 120_000);
		int keys = 10_000;
		for (int i = 0; i < keys; i++) {
			assertThat(put(lease, "key-" + i, "value-" + i).code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		}
		assertThat(put(lease, "one-more", "v").code()).isEqualTo(ResultCode.LEASE_RATE_LIMITED);
		assertThat(list(lease).names()).hasSize(keys);
		assertThat(storedKeys("kv")).isEqualTo(keys);
		long[] before = fcallStats();
		long started = System.nanoTime();
		LeaseResult released = this.store.release(new ReleaseRequest(lease.handle(), Identifiers.generate("request"),
				deadline()));
		long clientMicros = (System.nanoTime() - started) / 1_000;
		long[] after = fcallStats();
		assertThat(released.code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertThat(storedKeys("kv")).isZero();
		assertThat(storedKeys("att")).isZero();
		assertThat(get("key-0").code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		// INFO commandstats: the release's FCALL (calls delta 1 unless another client ran a function meanwhile)
		System.out.printf("[attach] %s release deleting %d attached keys: %d us inside the server "
				+ "(INFO commandstats cmdstat_fcall, %d call(s) in the window), %d us at the client%n", server, keys,
				after[1] - before[1], after[0] - before[0], clientMicros);
		LeaseRecord empty = acquire("t2", "alice", 60_000);
		long[] plainBefore = fcallStats();
		this.store.release(new ReleaseRequest(empty.handle(), Identifiers.generate("request"), deadline()));
		long[] plainAfter = fcallStats();
		System.out.printf("[attach] %s release of a lease without attached keys: %d us inside the server%n", server,
				plainAfter[1] - plainBefore[1]);
	}

	/** The ATTACHED marker of target: field a of its identity hash (storage v3), or null. */
	private String attachedMarker(String target) {
		LockIdentity identity = identity(target);
		return (String) this.redis.opsForHash().get(RedisKeys.of(identity).identity(identity.keyDigest()), "a");
	}

	/**
	 * The ATTACHED marker (prelude.lua, "Key layout"): a lease that never had an attached key is stored without it (its
	 * ending skips the attached-keys lookup); the first put sets it, a renewal keeps it, no reply ever shows it, and
	 * the ending of the marked lease deletes every attached key and clears the marker.
	 */
	@Test
	void theFirstAttachedKeyMarksTheStoredRecordAndTheEndingDeletesTheKeys() {
		LeaseRecord plain = acquire("t1", "alice", 60_000);
		LeaseRecord attached = acquire("t2", "alice", 60_000);
		assertThat(attachedMarker("t1")).isNullOrEmpty();
		assertThat(attachedMarker("t2")).isNullOrEmpty();
		assertThat(put(attached, "first", "1").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(attachedMarker("t2")).isEqualTo("1");
		LockIdentity identity = identity("t2");
		assertThat(put(attached, "second", "2").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		LeaseResult renewed = this.store.renew(new RenewRequest(attached.handle(), Identifiers.generate("request"),
				deadline()));
		assertThat(renewed.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(renewed.lease().leaseId()).isEqualTo(attached.leaseId());
		assertThat(renewed.lease().fencingToken()).isEqualTo(attached.fencingToken());
		assertThat(renewed.lease().metadata()).isEqualTo(attached.metadata());
		assertThat(attachedMarker("t2")).as("a renewal keeps the marker").isEqualTo("1");
		assertThat(this.store.inspect(InspectRequest.byIdentity(identity, "corr_1", deadline())).lease())
			.isEqualTo(renewed.lease());
		assertThat(storedKeys("kv")).isEqualTo(2);
		assertThat(this.store.release(new ReleaseRequest(plain.handle(), Identifiers.generate("request"), deadline()))
			.code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertThat(storedKeys("kv")).as("the unmarked lease's ending touches no attached key").isEqualTo(2);
		LeaseResult released = this.store.release(new ReleaseRequest(attached.handle(), Identifiers.generate("request"),
				deadline()));
		assertThat(released.code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertThat(released.lease().leaseId()).isEqualTo(attached.leaseId());
		assertThat(storedKeys("kv")).isZero();
		assertThat(storedKeys("att")).isZero();
		assertThat(attachedMarker("t2")).as("the ending clears the marker").isEmpty();
	}

	/** {calls, usec} of FCALL from INFO commandstats. */
	private long[] fcallStats() {
		Properties info = this.redis.execute((RedisCallback<Properties>) (c) -> c.serverCommands().info("commandstats"));
		String line = info.getProperty("cmdstat_fcall", "calls=0,usec=0");
		long calls = 0;
		long usec = 0;
		for (String part : line.split(",")) {
			if (part.startsWith("calls=")) {
				calls = Long.parseLong(part.substring(6));
			}
			else if (part.startsWith("usec=")) {
				usec = Long.parseLong(part.substring(5));
			}
		}
		return new long[] { calls, usec };
	}

}
