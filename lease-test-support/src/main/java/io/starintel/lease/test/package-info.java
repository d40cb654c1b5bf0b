/**
 * Test support shared by every module's tests: where the real servers are ({@link ServiceEnvironment}), the
 * launcher of throw-away Redis/Valkey servers ({@link RedisServerProcess}), the TCP proxy of the fault suites
 * ({@link FaultProxy}) and the public-surface check ({@link PublicTypes}). The conformance kits are
 * {@link io.starintel.lease.test.conformance.LeaseStoreConformanceKit} and
 * {@link io.starintel.lease.test.conformance.LeaseStoreSweepConformanceKit}.
 */
@NullMarked
package io.starintel.lease.test;

import org.jspecify.annotations.NullMarked;
