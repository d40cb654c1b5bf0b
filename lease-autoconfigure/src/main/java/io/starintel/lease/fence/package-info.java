/**
 * Fenced writes: {@link io.starintel.lease.fence.FenceGuard} authorizes a commit at backend time, and the
 * adapters in the sub-packages carry the accepted fencing token into the authoritative write.
 *
 * <p>Not API: {@code FenceStamp} is public only because another package of this project uses it (listed as
 * {@code internal} in {@code public-types/lease-autoconfigure.txt}; docs/ARCHITECTURE.md, "Public API"); it may
 * change without notice.
 */
@NullMarked
package io.starintel.lease.fence;

import org.jspecify.annotations.NullMarked;
