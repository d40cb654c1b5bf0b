/**
 * The plain-Java core: lock identities, requests, lease records, results and the rules they enforce (no Spring, no Redis).
 *
 * <p>Not API: {@code AttachedKeys}, {@code CorruptRecordException}, {@code FencingTokens}, {@code IdempotencyKeys},
 * {@code Identifiers}, {@code LeaseRecordJson}, {@code ListCursors}, {@code OperationClasses},
 * {@code RequestDigest}, {@code StoredRecord} are public only because another package of this project uses them
 * (listed as {@code internal} in {@code public-types/lease-autoconfigure.txt}; docs/ARCHITECTURE.md, "Public API");
 * they may change without notice.
 */
@NullMarked
package io.starintel.lease.core;

import org.jspecify.annotations.NullMarked;
