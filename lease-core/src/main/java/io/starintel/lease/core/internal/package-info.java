/**
 * Rules and encodings of the core that the stores, jobs and HTTP modules of this project share: identifiers, the
 * fencing-token rule, request digests and idempotency keys, the record encodings, list cursors, attached-key names
 * the acquisition backoff and which errors a typed-result boundary rethrows.
 *
 * <p>Not API: public only because other packages of this project use these types; they may change without notice
 * (docs/ARCHITECTURE.md, "Public API").
 */
@NullMarked
package io.starintel.lease.core.internal;

import org.jspecify.annotations.NullMarked;
