package io.starintel.lease.testing.internal;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;

import io.starintel.lease.job.LeaseLostListener;
import io.starintel.lease.store.LeaseStore;

/**
 * Wraps the application's {@link LeaseStore} bean (the auto-configured Redis store, the in-memory test store or the
 * application's own) in a {@link LeaseTestStore}, and its {@link LeaseLostListener} in one that also records each
 * event; both write into one {@link LeaseObservations}. The audit layer and the {@code LeaseService} facade are built
 * over the wrapped store, so what the tester switches applies to jobs, fenced writes and admin operations alike.
 */
public final class LeaseTestPostProcessor implements BeanPostProcessor, BeanFactoryAware, Ordered {

	/** Bean name of the in-memory store the test auto-configuration defines. */
	public static final String MEMORY_STORE_BEAN = "leaseTestMemoryStore";

	/** Bean name of that store's backend clock. */
	public static final String CLOCK_BEAN = "leaseTestBackendClock";

	private final LeaseObservations observations = new LeaseObservations();

	private @Nullable BeanFactory beanFactory;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		if (bean instanceof LeaseStore store && !(bean instanceof LeaseTestStore)) {
			MutableBackendClock clock = (MEMORY_STORE_BEAN.equals(beanName) && this.beanFactory != null)
					? this.beanFactory.getBean(CLOCK_BEAN, MutableBackendClock.class) : null;
			return new LeaseTestStore(store, clock, this.observations);
		}
		if (bean instanceof LeaseLostListener listener && !(bean instanceof RecordingLeaseLostListener)) {
			return new RecordingLeaseLostListener(listener, this.observations);
		}
		return bean;
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	/** The application's listener, then the record (a listener must not throw; the record happens regardless). */
	static final class RecordingLeaseLostListener implements LeaseLostListener {

		private final LeaseLostListener delegate;

		private final LeaseObservations observations;

		RecordingLeaseLostListener(LeaseLostListener delegate, LeaseObservations observations) {
			this.delegate = delegate;
			this.observations = observations;
		}

		@Override
		public void leaseLost(io.starintel.lease.job.LeaseLostEvent event) {
			try {
				this.delegate.leaseLost(event);
			}
			finally {
				this.observations.lost(event);
			}
		}

	}

}
