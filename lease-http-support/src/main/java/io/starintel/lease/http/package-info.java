/**
 * Configuration shapes the two HTTP adapters (the admin endpoint and the worker API) share: per-tenant admission
 * control and a configured credential. API: they are the element types of {@code starintel.lease.admin.*} and
 * {@code starintel.lease.worker-http.*}.
 */
@NullMarked
package io.starintel.lease.http;

import org.jspecify.annotations.NullMarked;
