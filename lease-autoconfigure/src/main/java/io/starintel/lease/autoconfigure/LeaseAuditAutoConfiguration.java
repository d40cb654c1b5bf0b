package io.starintel.lease.autoconfigure;

import java.time.Clock;
import java.util.List;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.starintel.lease.audit.internal.AsyncAuditPipeline;
import io.starintel.lease.audit.internal.UnkeptEventsSink;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.audit.internal.AuditingLeaseStore;
import io.starintel.lease.audit.spring.ApplicationEventAuditSink;
import io.starintel.lease.service.DefaultLeaseOperationObservationConvention;
import io.starintel.lease.service.LeaseOperationObservationConvention;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;

/**
 * The one audited operations path: the default audit sinks, the non-blocking routine-event pipeline and the
 * {@link LeaseService} facade over the single {@link AuditingLeaseStore} built here around the {@link LeaseStore}
 * bean. Jobs, the fence guard (and through it the fenced writers), the health indicator and the admin endpoint all
 * use this facade, so every SPI verb is timed, observed, exception-mapped and audited the same way.
 *
 * <p>The default sinks, declared here and nowhere else, are a structured log line ({@code io.starintel.lease.audit}
 * logger) and a Spring application event per event; the admin module adds the durable Redis stream sink. Every
 * {@link AuditSink} bean receives the events. {@code starintel.lease.audit.enabled=false} removes the default sinks
 * and makes the facade use the undecorated store (no event is built, whatever sinks exist). A user bean named
 * {@code targetLeaseLogAuditSink}, or of type {@link ApplicationEventAuditSink}, replaces ours; a user
 * {@link LeaseService} replaces the facade.
 */
@AutoConfiguration(after = LeaseStoreAutoConfiguration.class)
@ConditionalOnClass({ MeterRegistry.class, ObservationRegistry.class })
@EnableConfigurationProperties({ LeaseProperties.class, LeaseAuditProperties.class, LeaseObservationProperties.class })
public final class LeaseAuditAutoConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "starintel.lease.audit.enabled", matchIfMissing = true)
	AsyncAuditPipeline targetLeaseAuditPipeline(ObjectProvider<AuditSink> sinks, LeaseAuditProperties properties,
			ObjectProvider<MeterRegistry> meters, BeanFactory beans) {
		List<AuditSink> all = routineSinks(sinks.orderedStream().toList(), properties.logSink(),
				beans.containsBean(LOG_SINK) ? beans.getBean(LOG_SINK) : null);
		MeterRegistry registry = meters.getIfAvailable();
		Counter dropped = (registry != null) ? Counter.builder(AsyncAuditPipeline.DROPPED_COUNTER)
			.description("Routine audit events dropped because the audit queue was full")
			.register(registry) : null;
		Counter failed = (registry != null) ? Counter.builder(AsyncAuditPipeline.FAILED_COUNTER)
			.description("Routine audit events a durable sink did not confirm within the retry window")
			.register(registry) : null;
		AsyncAuditPipeline pipeline = new AsyncAuditPipeline(all, properties.queueCapacity(),
				properties.dropLogInterval(), (count) -> {
					if (dropped != null) {
						dropped.increment(count);
					}
				}, (count) -> {
					if (failed != null) {
						failed.increment(count);
					}
				}, properties.retryWindow());
		if (registry != null) {
			Gauge.builder(AsyncAuditPipeline.UNCONFIRMED_GAUGE, pipeline, AsyncAuditPipeline::unconfirmedCount)
				.description("Routine audit events held for a durable sink that failed, to be sent to it again")
				.register(registry);
		}
		return pipeline;
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(LeaseStore.class)
	LeaseService leaseService(LeaseStore store, LeaseProperties properties, LeaseAuditProperties audit,
			ObjectProvider<AuditSink> auditSinks, ObjectProvider<AsyncAuditPipeline> pipelines,
			ObjectProvider<MeterRegistry> meters, ObjectProvider<ObservationRegistry> observations,
			ObjectProvider<LeaseOperationObservationConvention> conventions, LeaseObservationProperties observation) {
		LeaseStore audited = audited(store, audit.enabled(), auditSinks, pipelines.getIfAvailable());
		LeaseService service = new LeaseService(audited, store, Clock.systemUTC(), properties.getRequest().timeout(),
				meters.getIfAvailable(), observations.getIfAvailable());
		service.setObservationConvention(conventions
			.getIfAvailable(() -> new DefaultLeaseOperationObservationConvention(observation.programTag())));
		return service;
	}

	/** The bean name of the default log sink. */
	static final String LOG_SINK = "targetLeaseLogAuditSink";

	/**
	 * The sinks of routine events: the log sink (the bean named {@value #LOG_SINK}) for every event when the setting
	 * says so ({@code auto}: when no durable sink keeps the events; a line per lease operation costs more than the
	 * operation's audit event itself on a busy service), and otherwise, unless {@code off}, for the events no durable
	 * sink keeps ({@link UnkeptEventsSink}: a request refused before any program scope was known, an admin refusal
	 * outside the caller's scope), so that every refusal is kept somewhere lasting.
	 */
	static List<AuditSink> routineSinks(List<AuditSink> all, LeaseAuditProperties.LogSink setting,
			@org.jspecify.annotations.Nullable Object logSink) {
		boolean durable = all.stream().anyMatch(AuditSink::isDurable);
		boolean keepLog = switch (setting) {
			case ON -> true;
			case OFF -> false;
			case AUTO -> !durable;
		};
		if (keepLog || logSink == null) {
			return all;
		}
		boolean unkept = setting == LeaseAuditProperties.LogSink.AUTO;
		return all.stream()
			.map((sink) -> (sink != logSink) ? sink : (unkept ? new UnkeptEventsSink(sink) : null))
			.filter(java.util.Objects::nonNull)
			.toList();
	}

	/**
	 * The single audited store: force-release/revoke decisions written synchronously (durable sinks skipped when the
	 * store writes them in its transition), everything else through the pipeline.
	 */
	static LeaseStore audited(LeaseStore store, boolean enabled, ObjectProvider<AuditSink> sinks,
			@org.jspecify.annotations.Nullable AsyncAuditPipeline pipeline) {
		if (!enabled || store instanceof AuditingLeaseStore) {
			return store;
		}
		List<AuditSink> all = sinks.orderedStream().toList();
		if (all.isEmpty()) {
			return store;
		}
		if (pipeline == null) {
			// a user removed the pipeline: every event is written synchronously
			return new AuditingLeaseStore(store, all, Clock.systemUTC(), store.writesAdminAuditAtomically());
		}
		return new AuditingLeaseStore(store, all, pipeline::submit, Clock.systemUTC());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty(name = "starintel.lease.audit.enabled", matchIfMissing = true)
	static class DefaultSinksConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = LOG_SINK)
		AuditSink targetLeaseLogAuditSink() {
			return AuditSink.log();
		}

		@Bean
		@ConditionalOnMissingBean(ApplicationEventAuditSink.class)
		ApplicationEventAuditSink targetLeaseApplicationEventAuditSink(ApplicationEventPublisher publisher) {
			return new ApplicationEventAuditSink(publisher);
		}

	}

}
