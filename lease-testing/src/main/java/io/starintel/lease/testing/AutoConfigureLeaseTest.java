package io.starintel.lease.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.PropertyMapping;

/**
 * Auto-configures lease testing for a {@code @SpringBootTest} (or a slice) of an application with
 * {@code @TargetLeased} jobs: the lease store (in-memory when there is no Redis, see {@link LeaseTestStoreMode}),
 * a {@link TargetLeaseTester} bean, a {@link CapturedAuditEvents} audit sink, and the
 * {@code starintel.lease.test.couchdb.*} properties of a CouchDB service connection.
 *
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;AutoConfigureLeaseTest
 * class ScanJobTests {
 *
 *     &#64;Autowired TargetLeaseTester leases;
 *     &#64;Autowired ScanJob job;
 *
 *     &#64;Test
 *     void revokeCancelsTheJob() {
 *         CompletableFuture&lt;?&gt; run = CompletableFuture.runAsync(() -&gt; job.scan("target-1"));
 *         HeldLease lease = leases.awaitLease("target-1");
 *         leases.revoke(lease);
 *         assertThat(leases.awaitCancellation(lease).reason()).isEqualTo(Reason.STALE_LEASE);
 *     }
 *
 * }
 * </pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
@PropertyMapping("starintel.lease.test")
public @interface AutoConfigureLeaseTest {

	/** Which store the test runs on; {@link LeaseTestStoreMode#AUTO} by default. */
	@PropertyMapping(skip = PropertyMapping.Skip.ON_DEFAULT_VALUE)
	LeaseTestStoreMode store() default LeaseTestStoreMode.AUTO;

}
