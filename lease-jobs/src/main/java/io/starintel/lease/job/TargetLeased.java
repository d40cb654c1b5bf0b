package io.starintel.lease.job;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.starintel.lease.context.LeaseContext;

/**
 * Runs a Spring bean method under a fenced, renewed lease on one target.
 *
 * <p>The aspect builds the canonical lock identity {@code (tenant, program, targetNamespace, target, actor,
 * workflow, operationClass)}: tenant and program come from {@code starintel.lease.*} configuration, never from
 * arguments (contract: components are resolved from trusted records); {@link #target()} is a SpEL expression over
 * the method's arguments whose value a {@link TargetResolver} turns into the trusted target.
 *
 * <p>Around the method: acquire-if-free (non-blocking unless {@link #waitFor()}); on conflict apply
 * {@link #onConflict()}; bind a {@link LeaseContext} for the call; renew at about {@code ttl/3} on the JVM's shared
 * scheduler, never past {@link #maxLifetime()}; on lease loss mark the context lost, publish a
 * {@link LeaseLostEvent} and cancel the job; release with a fresh request id at the end, also when the method
 * throws. A method returning {@code CompletionStage}/{@code CompletableFuture} keeps its lease until the stage
 * completes.
 *
 * <p>{@link ConflictPolicy#SKIP} return values: {@code void} and reference types return {@code null},
 * {@code Optional} returns {@code Optional.empty()}, {@code CompletionStage}/{@code CompletableFuture} return a
 * future completed with {@code null}. A primitive return type cannot express "skipped": such a method must use
 * {@link ConflictPolicy#THROW} (the aspect refuses to run it otherwise).
 *
 * <p>Re-entrancy: calling a method leased on the same lock identity while that identity's context is already bound
 * to the thread joins the existing context (no second acquire, renewal or release).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface TargetLeased {

	/** SpEL over the method's arguments yielding the target reference, e.g. {@code "#target.id"}. */
	String target();

	/** Target namespace of the canonical identity. */
	String targetNamespace() default "starintel-target";

	/** Actor name of the canonical identity, e.g. {@code usernamegen}. */
	String actor();

	/** Workflow name of the canonical identity. */
	String workflow() default "default";

	/** Operation class; must be {@code default} or one declared in {@code starintel.lease.operation-classes}. */
	String operationClass() default "default";

	/** Requested TTL, e.g. {@code 30s}; must satisfy the server policy's TTL bounds. */
	String ttl() default "30s";

	/** Maximum lifetime of the lease, e.g. {@code 5m}; renewal never extends past it. */
	String maxLifetime() default "5m";

	/** What happens when another holder has the lease. */
	ConflictPolicy onConflict() default ConflictPolicy.SKIP;

	/**
	 * Bounded wait for a conflicting lease to go away, e.g. {@code 2s}; {@code 0s} (default) is non-blocking.
	 * Retries use jittered backoff and are capped by {@code starintel.lease.request.maximum-wait}.
	 */
	String waitFor() default "0s";

}
