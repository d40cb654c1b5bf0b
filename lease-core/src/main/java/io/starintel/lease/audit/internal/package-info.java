/**
 * The auditing store decorator, the asynchronous pipeline of routine events, the event builder and the log sink.
 *
 * <p>Not API: public only because other packages of this project use these types; they may change without notice
 * (docs/ARCHITECTURE.md, "Public API").
 */
@NullMarked
package io.starintel.lease.audit.internal;

import org.jspecify.annotations.NullMarked;
