/**
 * AssertJ assertions for lease tests; start from {@link io.starintel.lease.testing.assertj.LeaseAssertions}.
 */
@NullMarked
package io.starintel.lease.testing.assertj;

import org.jspecify.annotations.NullMarked;
