/**
 * The lease store SPI: {@link io.starintel.lease.store.LeaseStore} and the alerts a store raises.
 */
@NullMarked
package io.starintel.lease.store;

import org.jspecify.annotations.NullMarked;
