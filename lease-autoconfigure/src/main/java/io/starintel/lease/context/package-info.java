/**
 * The current lease of a running execution ({@link io.starintel.lease.context.LeaseContext}) and its
 * context-propagation accessor: what leased jobs bind and fenced writers read.
 *
 * <p>Not API: {@code LeaseContextThreadLocalAccessor} is public only because another package of this project uses it
 * (listed as {@code internal} in {@code public-types/lease-autoconfigure.txt}; docs/ARCHITECTURE.md, "Public API");
 * it may change without notice.
 */
@NullMarked
package io.starintel.lease.context;

import org.jspecify.annotations.NullMarked;
