/**
 * Health indicator for the lease backend.
 *
 * <p>Not API: {@code LeaseHealthIndicator} is public only because another package of this project uses it (listed as
 * {@code internal} in {@code public-types/lease-autoconfigure.txt}; docs/ARCHITECTURE.md, "Public API"); it may
 * change without notice.
 */
@NullMarked
package io.starintel.lease.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
