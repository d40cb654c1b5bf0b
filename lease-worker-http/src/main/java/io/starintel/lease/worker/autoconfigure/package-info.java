/**
 * Auto-configuration of the worker HTTP API.
 */
@NullMarked
package io.starintel.lease.worker.autoconfigure;

import org.jspecify.annotations.NullMarked;
