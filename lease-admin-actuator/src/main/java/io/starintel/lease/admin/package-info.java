/**
 * The target-lease admin endpoint: operations, envelopes, admission control.
 */
@NullMarked
package io.starintel.lease.admin;

import org.jspecify.annotations.NullMarked;
