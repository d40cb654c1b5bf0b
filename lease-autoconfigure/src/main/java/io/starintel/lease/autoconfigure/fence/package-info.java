/**
 * Auto-configuration of fenced writes: the guard, checkpoints, RabbitMQ and CouchDB integrations.
 */
@NullMarked
package io.starintel.lease.autoconfigure.fence;

import org.jspecify.annotations.NullMarked;
