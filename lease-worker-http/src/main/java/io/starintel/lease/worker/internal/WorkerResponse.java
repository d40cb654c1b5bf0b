package io.starintel.lease.worker.internal;

/**
 * One HTTP answer: status, JSON body and the retry hint (also sent as {@code Retry-After}).
 */
record WorkerResponse(int status, String body, long retryAfterMs) {
}
