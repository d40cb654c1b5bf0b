/**
 * The target-lease admin endpoint: its settings ({@link AdminProperties}), the caller's grant ({@link AdminGrant},
 * {@link CredentialKind}) and who is calling ({@link AdminCaller}, replaceable by a bean of your own). The endpoint's
 * implementation (operations, parsing, authorization, envelopes, audit) is in {@code io.starintel.lease.admin.internal}.
 */
@NullMarked
package io.starintel.lease.admin;

import org.jspecify.annotations.NullMarked;
