/**
 * The context-propagation accessor of {@code LeaseContext} (registered through {@code META-INF/services}).
 *
 * <p>Not API: public only because other packages of this project use these types; they may change without notice
 * (docs/ARCHITECTURE.md, "Public API").
 */
@NullMarked
package io.starintel.lease.context.internal;

import org.jspecify.annotations.NullMarked;
