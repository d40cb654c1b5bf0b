package io.starintel.lease.testing.internal;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.WeakHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.support.AbstractTestExecutionListener;

import io.starintel.lease.testing.TargetLeaseTester;

/**
 * Resets the {@link TargetLeaseTester} of a test's application context before each test method (observations,
 * captured audit events once the audit pipeline delivered what was submitted before, outages, competing holders of
 * {@code takeOver}) and makes the backend reachable again after it, so that one test's outage, leases or audit events
 * do not leak into the next test sharing the cached context (as Boot resets its mock beans).
 *
 * <p>The tester's state is per application context, so test methods sharing a context must not run at the same time
 * (JUnit's parallel execution): one test's reset would forget another's observations and its teardown would end
 * another's outage. A test method that starts while another one of the same context is still running fails at once
 * with an {@link IllegalStateException} naming both, and its teardown leaves the running test's state alone.
 */
public final class LeaseTestExecutionListener extends AbstractTestExecutionListener {

	/** The test method running in each context with a tester (weak: a closed context is not kept). */
	private static final Map<ApplicationContext, Running> running = new WeakHashMap<>();

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE - 100;
	}

	@Override
	public void beforeTestMethod(TestContext testContext) {
		TargetLeaseTester tester = tester(testContext);
		if (tester == null) {
			return;
		}
		Running test = Running.of(testContext);
		synchronized (running) {
			Running other = running.get(testContext.getApplicationContext());
			if (other != null) {
				throw new IllegalStateException("Lease test " + test.name() + " started while " + other.name()
						+ " is still running in the same application context: the TargetLeaseTester's state "
						+ "(observed leases, outages, captured audit events) is per context, so tests sharing a "
						+ "context cannot run in parallel. Run them in one thread (@Execution(ExecutionMode.SAME_THREAD)"
						+ " on the class, or junit.jupiter.execution.parallel.enabled=false), or give them different "
						+ "contexts");
			}
			running.put(testContext.getApplicationContext(), test);
		}
		tester.reset();
	}

	@Override
	public void afterTestMethod(TestContext testContext) {
		TargetLeaseTester tester = tester(testContext);
		if (tester == null) {
			return;
		}
		synchronized (running) {
			Running current = running.get(testContext.getApplicationContext());
			// a test rejected for running in parallel leaves the running test's outage alone
			if (current == null || !current.is(testContext)) {
				return;
			}
			running.remove(testContext.getApplicationContext());
		}
		tester.restoreBackend();
	}

	private static @Nullable TargetLeaseTester tester(TestContext testContext) {
		if (!testContext.hasApplicationContext()) {
			return null;
		}
		return testContext.getApplicationContext().getBeanProvider(TargetLeaseTester.class).getIfAvailable();
	}

	/** A running test method: its instance and method (identity), and its name for messages. */
	private record Running(Object instance, Method method, String name) {

		static Running of(TestContext testContext) {
			Method method = testContext.getTestMethod();
			return new Running(testContext.getTestInstance(), method,
					testContext.getTestClass().getName() + "#" + method.getName());
		}

		boolean is(TestContext testContext) {
			return this.instance == testContext.getTestInstance() && this.method.equals(testContext.getTestMethod());
		}

	}

}
