/**
 * Audit events of the target-lease contract: closed event types, the event, sinks and the auditing store decorator (plain Java).
 *
 * <p>Not API: {@code AsyncAuditPipeline}, {@code AuditContext}, {@code AuditEventBuilder},
 * {@code AuditWriteException}, {@code AuditingLeaseStore}, {@code LogAuditSink} are public only because another
 * package of this project uses them (listed as {@code internal} in {@code public-types/lease-autoconfigure.txt};
 * docs/ARCHITECTURE.md, "Public API"); they may change without notice.
 */
@NullMarked
package io.starintel.lease.audit;

import org.jspecify.annotations.NullMarked;
