package io.starintel.lease.audit.spring;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import org.springframework.context.ApplicationListener;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.internal.AuditEventBuilder;
import io.starintel.lease.core.ResultCode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ApplicationEventAuditSink}: each event reaches the listeners of {@link AuditEvent} in a real context, as a
 * published {@code AuditEvent} would, and only them.
 */
class ApplicationEventAuditSinkTests {

	@Test
	void eventReachesAuditEventListenersOnly() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Listeners.class)) {
			Listeners listeners = context.getBean(Listeners.class);
			ApplicationEventAuditSink sink = new ApplicationEventAuditSink(context);
			AuditEvent first = event("request_1");
			AuditEvent second = event("request_2");
			sink.record(first);
			sink.record(second);
			assertThat(listeners.annotated).containsExactly(first, second);
			assertThat(listeners.typed).containsExactly(first, second);
			assertThat(listeners.strings).isEmpty();
			assertThat(listeners.sources).containsOnly(context);
		}
	}

	private static AuditEvent event(String requestId) {
		return new AuditEventBuilder(AuditEventType.RENEW, ResultCode.LEASE_RENEWED)
			.time(Instant.EPOCH.plusMillis(5), Instant.EPOCH)
			.ids(requestId, null)
			.build();
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		final List<AuditEvent> annotated = new CopyOnWriteArrayList<>();

		final List<AuditEvent> typed = new CopyOnWriteArrayList<>();

		final List<Object> strings = new CopyOnWriteArrayList<>();

		final List<Object> sources = new CopyOnWriteArrayList<>();

		@EventListener
		void on(AuditEvent event) {
			this.annotated.add(event);
		}

		@Bean
		ApplicationListener<PayloadApplicationEvent<AuditEvent>> typedListener() {
			return (event) -> {
				this.typed.add(event.getPayload());
				this.sources.add(event.getSource());
			};
		}

		@Bean
		ApplicationListener<PayloadApplicationEvent<String>> stringListener() {
			return (event) -> this.strings.add(event.getPayload());
		}

	}

}
