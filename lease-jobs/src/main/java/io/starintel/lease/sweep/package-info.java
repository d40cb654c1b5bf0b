/**
 * The expiry sweeper's observer: what each tick did for one program (the sweeper itself is in
 * {@code sweep.internal}).
 */
@NullMarked
package io.starintel.lease.sweep;

import org.jspecify.annotations.NullMarked;
