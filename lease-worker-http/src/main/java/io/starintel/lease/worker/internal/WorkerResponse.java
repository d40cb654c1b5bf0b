package io.starintel.lease.worker.internal;

/**
 * One HTTP answer: status, JSON body and, for a retryable code, the retry hint ({@code retry_after_ms}, also sent as
 * {@code Retry-After}, even when it is 0).
 */
record WorkerResponse(int status, String body, boolean retryable, long retryAfterMs) {
}
