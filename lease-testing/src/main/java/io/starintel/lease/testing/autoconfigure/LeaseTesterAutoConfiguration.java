package io.starintel.lease.testing.autoconfigure;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import io.starintel.lease.audit.internal.AsyncAuditPipeline;
import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.testing.AutoConfigureLeaseTest;
import io.starintel.lease.testing.CapturedAuditEvents;
import io.starintel.lease.testing.TargetLeaseTester;
import io.starintel.lease.testing.internal.LeaseTestModes;

/**
 * The {@link TargetLeaseTester} of {@link AutoConfigureLeaseTest}, once the store, the {@link LeaseService}
 * facade and the audit pipeline (when audit is on) exist.
 */
@AutoConfiguration(after = { LeaseAuditAutoConfiguration.class, LeaseTestAutoConfiguration.class })
@ConditionalOnBean({ LeaseStore.class, LeaseService.class, CapturedAuditEvents.class })
public final class LeaseTesterAutoConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(LeaseTesterAutoConfiguration.class);

	@Bean
	@ConditionalOnMissingBean
	TargetLeaseTester targetLeaseTester(ObjectProvider<LeaseStore> stores, LeaseService service,
			CapturedAuditEvents audit, ObjectProvider<AsyncAuditPipeline> pipeline, Environment environment,
			ListableBeanFactory beans) {
		LeaseStore store = stores.getIfUnique();
		if (store == null) {
			throw new IllegalStateException("TargetLeaseTester needs exactly one LeaseStore bean");
		}
		TargetLeaseTester tester = new TargetLeaseTester(store, service, audit, pipeline.getIfUnique());
		logger.info("Lease test on the {} store ({})",
				tester.isInMemory() ? "in-memory (backend time under test control)"
						: tester.store().getClass().getSimpleName(),
				LeaseTestModes.decide(environment, beans).why());
		return tester;
	}

}
