/**
 * The current lease of a running execution ({@link io.starintel.lease.context.LeaseContext}): what leased jobs bind
 * and fenced writers read.
 */
@NullMarked
package io.starintel.lease.context;

import org.jspecify.annotations.NullMarked;
