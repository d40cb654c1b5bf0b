/**
 * Auto-configuration of the admin endpoint.
 */
@NullMarked
package io.starintel.lease.admin.autoconfigure;

import org.jspecify.annotations.NullMarked;
