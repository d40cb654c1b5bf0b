/**
 * The lease service: the one operations facade (typed results, metrics, observations) over the audited LeaseStore.
 */
@NullMarked
package io.starintel.lease.service;

import org.jspecify.annotations.NullMarked;
