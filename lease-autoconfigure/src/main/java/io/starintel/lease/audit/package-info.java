/**
 * Audit events of the target-lease contract: closed event types, the event, sinks and the auditing store decorator (plain Java).
 */
@NullMarked
package io.starintel.lease.audit;

import org.jspecify.annotations.NullMarked;
