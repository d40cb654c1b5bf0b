/**
 * The test auto-configuration imported by {@link io.starintel.lease.testing.AutoConfigureLeaseTest}.
 */
@NullMarked
package io.starintel.lease.testing.autoconfigure;

import org.jspecify.annotations.NullMarked;
