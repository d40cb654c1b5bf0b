/**
 * The sample actor: a leased job that writes its results through a fenced writer.
 */
@NullMarked
package io.starintel.lease.sample;

import org.jspecify.annotations.NullMarked;
