/**
 * Test support shared by every module's tests: where the real servers are ({@link ServiceEnvironment}) and the
 * launcher of throw-away Redis/Valkey servers ({@link RedisServerProcess}). The conformance kit is
 * {@link io.starintel.lease.store.LeaseStoreConformanceKit}.
 */
@NullMarked
package io.starintel.lease.test;

import org.jspecify.annotations.NullMarked;
