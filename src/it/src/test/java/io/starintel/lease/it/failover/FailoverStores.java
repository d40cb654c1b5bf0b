package io.starintel.lease.it.failover;

import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.it.redis.RedisServers;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.redis.RedisLeaseStore;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The one place where the failover suites (and the load workers) build the store under test. Issue 36 adds a
 * durability option (replica acknowledgements required before a state change is reported successful): select it
 * here, in one line, and every failover test and worker runs with it.
 */
public final class FailoverStores {

	/** The suites' policy: TTLs from 100 ms (as the other Redis suites). */
	public static final LeasePolicy POLICY = RedisServers.POLICY;

	private FailoverStores() {
	}

	/** The store under test on a factory (standalone, sentinel or cluster). */
	public static RedisLeaseStore store(RedisConnectionFactory factory) {
		// issue 36: select the replica acknowledgement option here once the store has it, e.g.
		// return new RedisLeaseStore(factory, POLICY, LeaseAlerts.LOG, <durability: every replica, at least one>);
		return new RedisLeaseStore(factory, POLICY, LeaseAlerts.LOG);
	}

}
