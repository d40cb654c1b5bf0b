/**
 * Spring Boot auto-configuration and starintel.lease.* properties.
 */
@NullMarked
package io.starintel.lease.autoconfigure;

import org.jspecify.annotations.NullMarked;
