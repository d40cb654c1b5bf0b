package io.starintel.lease.worker.autoconfigure;

import java.util.function.Consumer;

import io.starintel.lease.audit.internal.AsyncAuditPipeline;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseAuditProperties;
import io.starintel.lease.autoconfigure.LeaseJobAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseProperties;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.worker.internal.WorkerController;
import io.starintel.lease.worker.internal.WorkerCredentials;
import io.starintel.lease.worker.internal.WorkerMultipartExceptionResolver;
import io.starintel.lease.worker.WorkerHttpProperties;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The worker HTTP API under {@code /lease/v1}: on when {@code starintel.lease.worker-http.enabled=true} in a servlet
 * web application that has the {@link LeaseService} of the lease auto-configuration (or its own). Every lease
 * operation goes through that service's operations view (the one audited store); refusals before the store go
 * through the audit pipeline (or, without one, to every {@link AuditSink} bean), and nowhere when
 * {@code starintel.lease.audit.enabled=false}.
 */
@AutoConfiguration(after = { LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class,
		LeaseJobAutoConfiguration.class })
@ConditionalOnBooleanProperty(name = "starintel.lease.worker-http.enabled")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBean({ LeaseService.class, LeasePolicy.class })
@EnableConfigurationProperties({ WorkerHttpProperties.class, LeaseProperties.class, LeaseAuditProperties.class })
public final class WorkerHttpAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	WorkerCredentials workerCredentials(WorkerHttpProperties properties) {
		return new WorkerCredentials(properties.credentials());
	}

	@Bean
	@ConditionalOnMissingBean
	WorkerMultipartExceptionResolver workerMultipartExceptionResolver(WorkerController controller) {
		return new WorkerMultipartExceptionResolver(controller);
	}

	@Bean
	@ConditionalOnMissingBean
	WorkerController workerController(LeaseService service, WorkerCredentials credentials, LeasePolicy policy,
			LeaseProperties lease, WorkerHttpProperties properties, ObjectProvider<AsyncAuditPipeline> pipelines,
			LeaseAuditProperties audit, ObjectProvider<AuditSink> sinks) {
		Consumer<AuditEvent> submit;
		AsyncAuditPipeline pipeline = pipelines.getIfAvailable();
		if (!audit.enabled()) {
			// starintel.lease.audit.enabled=false holds here too: no event is built
			submit = (event) -> {
			};
		}
		else if (pipeline != null) {
			submit = pipeline::submit;
		}
		else {
			return WorkerController.create(service, credentials, policy, lease.operationClassSet(),
					lease.getRequest().maximumWait(), properties, () -> sinks.orderedStream().toList());
		}
		return WorkerController.create(service, credentials, policy, lease.operationClassSet(),
				lease.getRequest().maximumWait(), properties, submit);
	}

}
