/**
 * Spring Boot auto-configuration and starintel.lease.* properties.
 *
 * <p>Not API: {@code LeaseConfigurationFailureAnalyzer} is public only because another package of this project uses
 * it (listed as {@code internal} in {@code public-types/lease-autoconfigure.txt}; docs/ARCHITECTURE.md, "Public
 * API"); it may change without notice.
 */
@NullMarked
package io.starintel.lease.autoconfigure;

import org.jspecify.annotations.NullMarked;
