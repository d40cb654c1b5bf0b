package io.starintel.lease.audit.internal;

import java.util.function.Supplier;

/** Runs an action with a value bound to a thread-local and restores the previous binding after it. */
final class ThreadBindings {

	private ThreadBindings() {
	}

	static <V, T> T run(ThreadLocal<V> binding, V value, Supplier<T> action) {
		V previous = binding.get();
		binding.set(value);
		try {
			return action.get();
		}
		finally {
			if (previous != null) {
				binding.set(previous);
			}
			else {
				binding.remove();
			}
		}
	}

}
