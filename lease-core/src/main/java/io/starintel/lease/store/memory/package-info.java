/**
 * The in-memory reference store: the executable model of the contract, used in tests and single-node development.
 */
@NullMarked
package io.starintel.lease.store.memory;

import org.jspecify.annotations.NullMarked;
