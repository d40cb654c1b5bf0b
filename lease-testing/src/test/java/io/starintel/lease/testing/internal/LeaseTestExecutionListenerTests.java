package io.starintel.lease.testing.internal;

import java.lang.reflect.Method;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.support.GenericApplicationContext;
import org.springframework.test.context.TestContext;

import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import io.starintel.lease.testing.CapturedAuditEvents;
import io.starintel.lease.testing.Outage;
import io.starintel.lease.testing.TargetLeaseTester;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * Two test methods sharing one context at the same time (JUnit's parallel execution): the second fails at once with a
 * message naming both, and its teardown does not end the first one's outage.
 */
class LeaseTestExecutionListenerTests {

	private final LeaseTestStore store = new LeaseTestStore(new InMemoryLeaseStore(), null, new LeaseObservations());

	private final TargetLeaseTester tester = new TargetLeaseTester(this.store, mock(LeaseService.class),
			new CapturedAuditEvents());

	private final GenericApplicationContext context = new GenericApplicationContext();

	private final LeaseTestExecutionListener listener = new LeaseTestExecutionListener();

	LeaseTestExecutionListenerTests() {
		this.context.registerBean(TargetLeaseTester.class, () -> this.tester);
		this.context.refresh();
	}

	@AfterEach
	void close() {
		this.context.close();
	}

	@Test
	void aSecondTestOfTheSameContextRunningInParallelFailsAtOnceAndLeavesTheFirstOnesOutageAlone() throws Exception {
		TestContext first = testContext(new Object(), "first");
		TestContext second = testContext(new Object(), "second");
		this.listener.beforeTestMethod(first);
		Outage outage = this.tester.backendUnreachable();
		assertThatIllegalStateException().isThrownBy(() -> this.listener.beforeTestMethod(second))
			.withMessageContaining("#second started while")
			.withMessageContaining("#first is still running in the same application context")
			.withMessageContaining("cannot run in parallel");
		this.listener.afterTestMethod(second);
		assertThat(this.store.isUnreachable()).as("the first test's outage").isTrue();
		assertThat(outage.isActive()).isTrue();
		this.listener.afterTestMethod(first);
		assertThat(this.store.isUnreachable()).isFalse();
	}

	@Test
	void testsOneAfterTheOtherShareTheContextAsBefore() throws Exception {
		TestContext first = testContext(new Object(), "first");
		TestContext second = testContext(new Object(), "second");
		this.listener.beforeTestMethod(first);
		this.tester.backendUnreachable();
		this.listener.afterTestMethod(first);
		assertThat(this.store.isUnreachable()).isFalse();
		this.listener.beforeTestMethod(second);
		this.tester.backendUnreachable();
		this.listener.afterTestMethod(second);
		assertThat(this.store.isUnreachable()).isFalse();
	}

	private TestContext testContext(Object instance, String methodName) throws NoSuchMethodException {
		return testContext(this.context, instance, methodName);
	}

	/** The test context of one test method ({@code first} or {@code second}) in {@code context}. */
	static TestContext testContext(GenericApplicationContext context, Object instance, String methodName)
			throws NoSuchMethodException {
		Method method = Methods.class.getDeclaredMethod(methodName);
		TestContext testContext = mock(TestContext.class);
		given(testContext.hasApplicationContext()).willReturn(true);
		given(testContext.getApplicationContext()).willReturn(context);
		given(testContext.getTestInstance()).willReturn(instance);
		given(testContext.getTestMethod()).willReturn(method);
		given(testContext.getTestClass()).willAnswer((invocation) -> Methods.class);
		return testContext;
	}

	static class Methods {

		void first() {
		}

		void second() {
		}

	}

}
