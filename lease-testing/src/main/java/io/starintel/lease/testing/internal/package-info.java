/**
 * Internal: the recording, switchable store decorator, the backend clock of the in-memory test store, the mode
 * decision and the post-processors the test auto-configuration registers. Public only because the API packages of
 * this module use them; <strong>not API</strong>, may change without notice.
 */
@NullMarked
package io.starintel.lease.testing.internal;

import org.jspecify.annotations.NullMarked;
