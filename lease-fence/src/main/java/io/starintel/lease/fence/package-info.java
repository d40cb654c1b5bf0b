/**
 * Fenced writes: {@link io.starintel.lease.fence.FenceGuard} authorizes a commit at backend time, and the
 * adapters in the sub-packages carry the accepted fencing token (the {@link io.starintel.lease.fence.FenceStamp})
 * into the authoritative write.
 */
@NullMarked
package io.starintel.lease.fence;

import org.jspecify.annotations.NullMarked;
