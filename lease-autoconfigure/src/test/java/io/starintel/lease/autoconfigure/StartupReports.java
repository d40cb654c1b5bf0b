package io.starintel.lease.autoconfigure;

import java.util.List;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

/**
 * The "APPLICATION FAILED TO START" report Spring Boot would print for a start-up failure: the first analysis, in
 * order, of the failure analyzers registered in {@code META-INF/spring.factories} (as lease-test-support's
 * {@code StartupFailureReports}, which this module cannot depend on).
 */
public final class StartupReports {

	private StartupReports() {
	}

	/**
	 * The report's description, a blank line and the action; fails the test when no analyzer explains the failure
	 * (Spring Boot would then print the raw stack trace).
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
