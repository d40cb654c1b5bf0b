package io.starintel.lease.test.conformance;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Hands a suite the provider of the test it runs in: the enclosing test instance (a suite runs as a {@code @Nested}
 * class of the provider's test class) that implements {@link LeaseStoreUnderTest} or {@link SweepStoreUnderTest}.
 */
final class StoreUnderTestResolver implements ParameterResolver {

	@Override
	public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
		Class<?> type = parameter.getParameter().getType();
		return type == LeaseStoreUnderTest.class || type == SweepStoreUnderTest.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
		Class<?> type = parameter.getParameter().getType();
		for (Object instance : context.getRequiredTestInstances().getAllInstances()) {
			if (type.isInstance(instance)) {
				return instance;
			}
		}
		throw new ParameterResolutionException(context.getRequiredTestClass().getName() + " must run as a @Nested "
				+ "class of a test class that implements " + type.getSimpleName() + " (or extends "
				+ ((type == LeaseStoreUnderTest.class) ? "LeaseStoreConformanceKit" : "LeaseStoreSweepConformanceKit")
				+ ")");
	}

}
