/**
 * The plain-Java core: lock identities, requests, lease records, results and the rules they enforce (no Spring, no Redis).
 */
@NullMarked
package io.starintel.lease.core;

import org.jspecify.annotations.NullMarked;
