package io.starintel.lease.bench;

import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.TransportMode;

/**
 * Redisson's locks, with Redisson's default pools: {@code redisson-fenced} is {@link RFencedLock}, the one peer that
 * issues a fencing token ({@code getFencedLock(name).tryLockAndGetToken(0, ttl)}), {@code redisson-lock} is the plain
 * {@link RLock} ({@code getLock(name).tryLock(0, ttl)}); both with an explicit lease time (no watchdog) and
 * {@code unlock()}.
 *
 * <p>Without a replica the client is Redisson's single-server configuration, which never waits for replicas. With a
 * replica ({@code scripts/bench.sh --replica}) it is the master/replica configuration
 * ({@code useMasterSlaveServers()}) with Redisson's replica check at its defaults, stated explicitly:
 * {@code checkLockSyncedSlaves = true}, {@code slavesSyncTimeout = 1000} ms. Each lock change then goes out in a batch
 * with a {@code WAIT} for the replicas Redisson sees, and a change no replica acknowledged fails
 * ({@code NoSyncedSlavesException}): the setting issue 36 compares the store's replica wait with.
 */
final class RedissonLibrary implements LockLibrary {

	private static final long LEASE_MS = 30_000;

	/** Redisson's default {@code slavesSyncTimeout}. */
	private static final long SLAVES_SYNC_TIMEOUT_MS = 1_000;

	private final RedissonClient redisson;

	private final String cell;

	private final boolean fenced;

	RedissonLibrary(BenchRedis redis, String cell, boolean fenced) {
		this.cell = cell;
		this.fenced = fenced;
		Config config = new Config();
		String replica = redis.replicaUrl();
		if (replica != null) {
			config.useMasterSlaveServers().setMasterAddress(redis.url()).addSlaveAddress(replica);
			config.setCheckLockSyncedSlaves(true).setSlavesSyncTimeout(SLAVES_SYNC_TIMEOUT_MS);
		}
		else {
			config.useSingleServer().setAddress(redis.url());
		}
		if (BenchTransport.current() == BenchTransport.EPOLL) {
			config.setTransportMode(TransportMode.EPOLL);
		}
		this.redisson = Redisson.create(config);
	}

	@Override
	public LockCycle open(String key, int thread) {
		String name = "{bench:" + this.cell + "}:" + key;
		if (this.fenced) {
			return () -> {
				RFencedLock lock = this.redisson.getFencedLock(name);
				Long token = lock.tryLockAndGetToken(0, LEASE_MS, TimeUnit.MILLISECONDS);
				if (token == null) {
					return false;
				}
				lock.unlock();
				return true;
			};
		}
		return () -> {
			RLock lock = this.redisson.getLock(name);
			boolean locked;
			try {
				locked = lock.tryLock(0, LEASE_MS, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			if (!locked) {
				return false;
			}
			lock.unlock();
			return true;
		};
	}

	@Override
	public void close() {
		this.redisson.shutdown();
	}

}
