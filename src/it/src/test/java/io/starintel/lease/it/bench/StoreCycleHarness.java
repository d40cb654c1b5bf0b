package io.starintel.lease.it.bench;

import java.lang.management.ManagementFactory;
import java.time.Instant;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.it.redis.RedisServers;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.redis.RedisLeaseStore;

/**
 * Harness (not a test, not the benchmark): acquire+release cycles of the Redis store on one thread, distinct keys,
 * reporting per cycle the bytes allocated by all JVM threads (the caller and Lettuce's event loop:
 * {@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}), the Redis commands ({@code INFO commandstats},
 * commands run inside functions included) and the Redis CPU ({@code INFO cpu}; meaningful on a server of its own).
 *
 * <p>Run with {@code java -cp <test classpath> io.starintel.lease.it.bench.StoreCycleHarness [cycles] [host:port]}.
 */
public final class StoreCycleHarness {

	public static void main(String[] args) throws Exception {
		int cycles = (args.length > 0) ? Integer.parseInt(args[0]) : 20_000;
		String server = (args.length > 1) ? args[1] : "127.0.0.1:6379";
		String host = server.substring(0, server.indexOf(':'));
		int port = Integer.parseInt(server.substring(server.indexOf(':') + 1));
		LettuceConnectionFactory factory = RedisServers.factory(host, port);
		RedisLeaseStore store = new RedisLeaseStore(factory, RedisServers.POLICY, LeaseAlerts.LOG);
		String program = "program-cycle-" + Identifiers.generate("p").substring(2, 12).toLowerCase();
		LeaseOwner owner = new LeaseOwner("prn_bench", "client_bench", "key_bench", "instance_bench");
		LockIdentity[] identities = new LockIdentity[1024];
		for (int i = 0; i < identities.length; i++) {
			identities[i] = LockIdentity.of("tenant-bench", program, "starintel-target", "target_" + i, "usernamegen",
					"default", "default");
		}
		// load the function library with a generous deadline (a cold JVM on a loaded machine is slow)
		store.inspect(io.starintel.lease.core.InspectRequest.byIdentity(identities[0], "warm-up",
				Instant.now().plusSeconds(60)));
		run(store, identities, owner, cycles / 2); // warm-up (JIT, connection, function library loaded)
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory
			.getThreadMXBean();
		try (ManyLeasesRenewalHarness.ServerStats stats = new ManyLeasesRenewalHarness.ServerStats(
				"redis://" + server)) {
			long commandsBefore = stats.commands();
			double cpuBefore = stats.cpuSeconds();
			long allocatedBefore = allocated(threads);
			long start = System.nanoTime();
			run(store, identities, owner, cycles);
			double wall = (System.nanoTime() - start) / 1e9;
			long allocated = allocated(threads) - allocatedBefore;
			double cpu = stats.cpuSeconds() - cpuBefore;
			long commands = stats.commands() - commandsBefore;
			System.out.printf("%d cycles in %.2f s (%.0f cycles/s, %.1f us per cycle)%n", cycles, wall, cycles / wall,
					wall * 1e6 / cycles);
			System.out.printf("allocated %.2f KiB per cycle (all threads)%n", allocated / 1024.0 / cycles);
			System.out.printf("redis commands %.1f per cycle (incl. the 2 FCALLs), redis CPU %.1f us per cycle%n",
					(double) commands / cycles, cpu * 1e6 / cycles);
		}
		factory.destroy();
	}

	private static void run(RedisLeaseStore store, LockIdentity[] identities, LeaseOwner owner, int cycles) {
		for (int i = 0; i < cycles; i++) {
			LockIdentity identity = identities[i % identities.length];
			LeaseResult acquired = store.acquire(new AcquireRequest(identity, Identifiers.generate("request"),
					Instant.now().plusSeconds(5), owner, 30_000, 60_000, "execution_1", "job_bench", "trace_1",
					LeaseMetadata.empty()));
			if (acquired.code() != ResultCode.LEASE_ACQUIRED) {
				throw new IllegalStateException("acquire: " + acquired.code());
			}
			LeaseResult released = store.release(new ReleaseRequest(acquired.lease().handle(),
					Identifiers.generate("request"), Instant.now().plusSeconds(5)));
			if (released.code() != ResultCode.LEASE_RELEASED) {
				throw new IllegalStateException("release: " + released.code());
			}
		}
	}

	private static long allocated(com.sun.management.ThreadMXBean threads) {
		long total = 0;
		for (long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
			total += Math.max(0, bytes);
		}
		return total;
	}

}
