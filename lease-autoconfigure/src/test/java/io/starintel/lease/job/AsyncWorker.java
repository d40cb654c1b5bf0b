package io.starintel.lease.job;

import java.util.concurrent.CompletableFuture;

import org.springframework.scheduling.annotation.Async;

import io.starintel.lease.context.LeaseContext;

/** An {@code @Async} bean: reports the lease context visible on its executor thread. */
public class AsyncWorker {

	@Async
	public CompletableFuture<String> leaseIdOnAnotherThread() {
		String id = LeaseContext.current().map(LeaseContext::leaseId).orElse("none");
		return CompletableFuture.completedFuture(id + "@" + Thread.currentThread().getName());
	}

}
