package io.starintel.lease.test;

import java.util.List;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

/**
 * The "APPLICATION FAILED TO START" report Spring Boot would print for a start-up failure (for instance an
 * {@code ApplicationContextRunner}'s {@code getStartupFailure()}): the first analysis, in order, of the
 * {@link FailureAnalyzer}s registered in {@code META-INF/spring.factories}, as Spring Boot picks it. Tests assert on
 * what the user reads (each property named) rather than on an exception's type.
 */
public final class StartupFailureReports {

	private StartupFailureReports() {
	}

	/**
	 * The report's description and action, or fails the test when no analyzer explains the failure (Spring Boot would
	 * then print the raw stack trace).
	 * @param failure the start-up failure
	 * @return the description, a blank line and the action
	 */
	public static String report(Throwable failure) {
		// analyzers whose constructors take the context's bean factory or environment are left out: none of ours does
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, ArgumentResolver.none(), FailureHandler.handleMessage((message, ex) -> {
			}));
		AnnotationAwareOrderComparator.sort(analyzers);
		for (FailureAnalyzer analyzer : analyzers) {
			FailureAnalysis analysis = analyzer.analyze(failure);
			if (analysis != null) {
				return analysis.getDescription() + "\n\n" + analysis.getAction();
			}
		}
		throw new AssertionError("no failure analysis: Spring Boot would print the raw exception", failure);
	}

}
