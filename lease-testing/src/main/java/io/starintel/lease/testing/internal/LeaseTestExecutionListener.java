package io.starintel.lease.testing.internal;

import org.springframework.context.ApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.support.AbstractTestExecutionListener;

import io.starintel.lease.testing.TargetLeaseTester;

/**
 * Resets the {@link TargetLeaseTester} of a test's application context before each test method (observations,
 * captured audit events, outages) and makes the backend reachable again after it, so that one test's outage or
 * leases do not leak into the next test sharing the cached context (as Boot resets its mock beans).
 */
public final class LeaseTestExecutionListener extends AbstractTestExecutionListener {

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE - 100;
	}

	@Override
	public void beforeTestMethod(TestContext testContext) {
		tester(testContext, true);
	}

	@Override
	public void afterTestMethod(TestContext testContext) {
		tester(testContext, false);
	}

	private static void tester(TestContext testContext, boolean before) {
		if (!testContext.hasApplicationContext()) {
			return;
		}
		ApplicationContext context = testContext.getApplicationContext();
		context.getBeanProvider(TargetLeaseTester.class).ifAvailable((tester) -> {
			if (before) {
				tester.reset();
			}
			else {
				tester.restoreBackend();
			}
		});
	}

}
