package io.starintel.lease.job.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.job.CancellationMode;

/**
 * Runs a leased method under an acquired lease: binds the {@link LeaseContext}, registers it for renewal, cancels
 * the work on loss and releases the lease when the method (or its returned {@link CompletionStage}) ends.
 *
 * <p>Contract: lease loss signals cancellation immediately ({@link CancellationMode#INTERRUPT} interrupts the
 * thread that runs the method, or cancels the returned stage); release uses a fresh request id and runs also when
 * the method throws; a lease that shutdown already released is not released twice; a renewal already sent for the
 * lease is answered before its release is sent; the release (and its wait for that renewal) runs with the
 * interrupt flag cleared and restored ({@link Uninterrupted}), so a job that ends with its flag set gets its release
 * answered, and keeps its flag.
 */
final class LeasedInvocation {

	private static final Logger logger = LoggerFactory.getLogger(TargetLeaseInterceptor.class);

	private final LeaseService service;

	private final LeaseRenewalScheduler scheduler;

	private final CancellationMode cancellation;

	private final BooleanSupplier accepting;

	LeasedInvocation(LeaseService service, LeaseRenewalScheduler scheduler, CancellationMode cancellation,
			BooleanSupplier accepting) {
		this.service = service;
		this.scheduler = scheduler;
		this.cancellation = cancellation;
		this.accepting = accepting;
	}

	/** Proceeds with the call under {@code context}; an asynchronous method's lease lives until its stage ends. */
	@Nullable Object proceed(MethodInvocation invocation, LeaseContext context, boolean async) throws Throwable {
		return async ? proceedAsync(invocation, context) : proceedSync(invocation, context);
	}

	private @Nullable Object proceedSync(MethodInvocation invocation, LeaseContext context) throws Throwable {
		ThreadCancellation cancellation = new ThreadCancellation(Thread.currentThread(), this.cancellation);
		LeaseRenewal registration = this.scheduler.register(context, cancellation);
		try (LeaseContext.Scope scope = LeaseContext.bind(context)) {
			return invocation.proceed();
		}
		finally {
			cancellation.finish();
			registration.close();
			release(registration);
		}
	}

	private @Nullable Object proceedAsync(MethodInvocation invocation, LeaseContext context) throws Throwable {
		CompletableFuture<Object> result = new CompletableFuture<>();
		AtomicReference<@Nullable CompletionStage<?>> stage = new AtomicReference<>();
		Runnable cancellation = () -> {
			if (this.cancellation == CancellationMode.INTERRUPT) {
				result.cancel(true);
				cancelStage(stage.get());
			}
		};
		LeaseRenewal registration = this.scheduler.register(context, cancellation);
		Object returned;
		try (LeaseContext.Scope scope = LeaseContext.bind(context)) {
			returned = invocation.proceed();
		}
		catch (Throwable ex) {
			registration.close();
			release(registration);
			throw ex;
		}
		if (returned == null) {
			registration.close();
			release(registration);
			return null;
		}
		CompletionStage<?> returnedStage = (CompletionStage<?>) returned;
		stage.set(returnedStage);
		returnedStage.whenComplete((value, error) -> {
			registration.close();
			release(registration);
			if (error != null) {
				result.completeExceptionally(error);
			}
			else {
				result.complete(value);
			}
		});
		if (result.isCancelled()) {
			cancelStage(returnedStage);
		}
		return result;
	}

	private static void cancelStage(@Nullable CompletionStage<?> stage) {
		if (stage == null) {
			return;
		}
		try {
			stage.toCompletableFuture().cancel(true);
		}
		catch (UnsupportedOperationException ex) {
			// a stage that cannot be cancelled: the caller's future is cancelled anyway
		}
	}

	private void release(LeaseRenewal registration) {
		if (!registration.claimRelease()) {
			return; // shutdown released it already
		}
		LeaseContext context = registration.context();
		// with the interrupt flag cleared (a job may end with its flag set): the release's answer is the backend's
		LeaseResult released = Uninterrupted.call(() -> registration.release(this.service, this.service.deadline()));
		if (released.isSuccess()) {
			if (this.accepting.getAsBoolean()) {
				logger.debug("Lease released: {}", context);
			}
			else {
				logger.info("Lease released at shutdown (the job ended): {}", context);
			}
		}
		else if (context.isLost()) {
			logger.debug("Lease of a lost context not released ({}): {}", released.code().wireName(), context);
		}
		else {
			logger.warn("Lease release answered {} for {}; it ends at its expiry", released.code().wireName(), context);
		}
	}

	/** Interrupts the job's thread on loss while (and only while) the method runs on it. */
	private static final class ThreadCancellation implements Runnable {

		private final Thread thread;

		private final CancellationMode mode;

		private boolean running = true;

		private boolean interrupted;

		ThreadCancellation(Thread thread, CancellationMode mode) {
			this.thread = thread;
			this.mode = mode;
		}

		@Override
		public synchronized void run() {
			if (this.running && this.mode == CancellationMode.INTERRUPT) {
				this.interrupted = true;
				this.thread.interrupt();
			}
		}

		/** Called on the job's thread when the method ended: clears an interrupt this cancellation caused. */
		synchronized void finish() {
			this.running = false;
			if (this.interrupted) {
				Thread.interrupted();
			}
		}

	}

}
