/**
 * Audit events of the target-lease contract: closed event types, the event and the sink interface (plain Java; the
 * auditing store decorator and the default sinks are in {@code audit.internal}).
 */
@NullMarked
package io.starintel.lease.audit;

import org.jspecify.annotations.NullMarked;
