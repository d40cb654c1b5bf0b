/**
 * The Spring application-event audit sink.
 */
@NullMarked
package io.starintel.lease.audit.spring;

import org.jspecify.annotations.NullMarked;
