/**
 * Fenced job checkpoints and terminal states: lease validation and write in one Redis script.
 */
@NullMarked
package io.starintel.lease.fence.checkpoint;

import org.jspecify.annotations.NullMarked;
