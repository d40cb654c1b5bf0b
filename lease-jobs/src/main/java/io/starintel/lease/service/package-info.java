/**
 * The lease service: requests, deadlines, metrics and observations around a LeaseStore.
 */
@NullMarked
package io.starintel.lease.service;

import org.jspecify.annotations.NullMarked;
