package io.starintel.lease.store.redis;

import io.starintel.lease.store.redis.internal.LeaseLibrary;

/**
 * One call of a library function: the function, its keys and its arguments, built by one named builder per function
 * ({@link LeaseArguments}, {@link AttachArguments}, {@link ProgramArguments}). Every call's first key is a key of its
 * program ({@code P{T}:...}).
 */
record FunctionCall(LeaseLibrary.Function function, byte[][] keys, byte[][] args) {
}
