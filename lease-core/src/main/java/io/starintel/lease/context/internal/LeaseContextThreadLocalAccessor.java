package io.starintel.lease.context.internal;

import io.micrometer.context.ThreadLocalAccessor;
import org.jspecify.annotations.Nullable;
import io.starintel.lease.context.LeaseContext;

/**
 * Micrometer context-propagation accessor for {@link LeaseContext}, registered through
 * {@code META-INF/services/io.micrometer.context.ThreadLocalAccessor}: {@code ContextSnapshot},
 * {@code ContextPropagatingTaskDecorator} and Reactor's automatic context propagation carry the fencing context
 * into {@code @Async} methods, executors and reactive chains. A propagated context is the same object, so loss
 * marked by the renewal scheduler is seen everywhere.
 */
public final class LeaseContextThreadLocalAccessor implements ThreadLocalAccessor<LeaseContext> {

	/** The key of the context in snapshots and Reactor contexts. */
	public static final String KEY = "starintel.lease.context";

	@Override
	public Object key() {
		return KEY;
	}

	@Override
	public @Nullable LeaseContext getValue() {
		return LeaseContext.currentOrNull();
	}

	/** Binds {@code value}; the propagation library restores the previous value itself ({@link #restore}). */
	@Override
	public void setValue(LeaseContext value) {
		LeaseContext.bind(value);
	}

	@Override
	public void setValue() {
		LeaseContext.bind(null);
	}

}
