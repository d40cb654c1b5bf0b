/**
 * Health indicator for the lease backend.
 */
@NullMarked
package io.starintel.lease.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
