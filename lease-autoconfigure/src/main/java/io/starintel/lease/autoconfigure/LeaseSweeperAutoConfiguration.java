package io.starintel.lease.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;

import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.sweep.ExpirySweeper;

/**
 * The expiry sweeper ({@code starintel.lease.sweeper.enabled}, default on): ends expired leases of the configured
 * program (and {@code additional-programs}) every {@code interval}, through the {@link LeaseService} (over the
 * audited store), so each swept lease gets one {@code target_lease_expire} event; with its meters when a
 * {@link MeterRegistry} exists. It starts with the context and stops first on shutdown, without waiting for a call
 * in flight. A user {@link ExpirySweeper} bean replaces it.
 */
@AutoConfiguration(after = LeaseAuditAutoConfiguration.class)
@ConditionalOnBean(LeaseService.class)
@ConditionalOnBooleanProperty(name = "starintel.lease.sweeper.enabled", matchIfMissing = true)
@EnableConfigurationProperties({ LeaseProperties.class, LeaseSweeperProperties.class })
public final class LeaseSweeperAutoConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	ExpirySweeper targetLeaseExpirySweeper(LeaseService service, LeaseProperties properties,
			LeaseSweeperProperties sweeper, ObjectProvider<MeterRegistry> meters) {
		List<ProgramScope> programs = new ArrayList<>();
		programs.add(ProgramScope.of(properties.getTenant(), properties.getProgram()));
		for (ProgramScope scope : sweeper.additionalScopes()) {
			if (!programs.contains(scope)) {
				programs.add(scope);
			}
		}
		ExpirySweeper.Builder builder = ExpirySweeper.builder(service)
			.programs(programs)
			.interval(sweeper.interval())
			.batchSize(sweeper.batchSize())
			.maxBatchesPerTick(sweeper.maxBatchesPerTick())
			.discoverPrograms(sweeper.discoverPrograms())
			.claimant(sweeper.share() ? properties.getOwner().effectiveServiceInstanceId() : null)
			.callTimeout(properties.getRequest().timeout());
		meters.ifAvailable(builder::meters);
		return builder.build();
	}

	@Bean
	SmartLifecycle targetLeaseExpirySweeperLifecycle(ExpirySweeper sweeper) {
		return new SweeperLifecycle(sweeper);
	}

	/** Starts the sweeper with the context; stops it before other beans (a phase above the default). */
	static final class SweeperLifecycle implements SmartLifecycle {

		private final ExpirySweeper sweeper;

		SweeperLifecycle(ExpirySweeper sweeper) {
			this.sweeper = sweeper;
		}

		@Override
		public void start() {
			this.sweeper.start();
		}

		@Override
		public void stop() {
			this.sweeper.stop(); // closed with its bean; a stopped context may be started again
		}

		@Override
		public boolean isRunning() {
			return this.sweeper.isRunning();
		}

		@Override
		public int getPhase() {
			return SmartLifecycle.DEFAULT_PHASE - 1024;
		}

	}

}
