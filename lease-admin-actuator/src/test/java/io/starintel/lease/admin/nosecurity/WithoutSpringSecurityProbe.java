package io.starintel.lease.admin.nosecurity;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.starintel.lease.admin.internal.TargetLeaseAdminEndpoint;
import io.starintel.lease.admin.internal.TargetLeaseAdminOperations;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.service.LeaseService;
import org.apache.catalina.webresources.TomcatURLStreamHandlerFactory;
import org.awaitility.Awaitility;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.web.server.servlet.context.AnnotationConfigServletWebServerApplicationContext;
import org.springframework.context.event.EventListener;

/**
 * Runs inside {@link WithoutSpringSecurityTests}'s class loader, which has no Spring Security at all (its jars are
 * left out, as an application without {@code spring-boot-starter-security} has them): the whole auto-configuration
 * chain ({@code @EnableAutoConfiguration}, no lease or admin bean of the test's own) in an
 * {@link WebApplicationContextRunner} whose class loader also hides {@code org.springframework.security}, on a real
 * server on a random port. Answers in JDK types only (the caller's classes are not this loader's).
 */
public final class WithoutSpringSecurityProbe {

	private WithoutSpringSecurityProbe() {
	}

	/** The application: auto-configuration only, and a listener of the audit events. */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	public static class App {

		final List<AuditEvent> events = new CopyOnWriteArrayList<>();

		@EventListener
		void on(AuditEvent event) {
			this.events.add(event);
		}

	}

	/**
	 * Starts the application, sends the requests ({@code method path [content-type body]}) and reports: {@code failure}
	 * (the start-up failure, if any), {@code beans}, and per request {@code <request> -> <status> <body>} and the audit
	 * events of its correlation id ({@code <result code> <principal class>}).
	 */
	private static HttpRequest request(int port, String correlationId, String[] request) {
		HttpRequest.Builder builder = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/targetleases" + request[1]))
			.header("X-Correlation-Id", correlationId)
			.timeout(Duration.ofSeconds(10));
		if (request.length > 2) {
			builder.header("Content-Type", request[2]).method(request[0], HttpRequest.BodyPublishers.ofString(request[3]));
		}
		else {
			builder.method(request[0], HttpRequest.BodyPublishers.noBody());
		}
		if (request.length > 4) {
			builder.header("Authorization", request[4]);
		}
		return builder.build();
	}

	/** The audit events of one correlation id: {@code <result code> <principal class>} each. */
	private static List<String> audited(App app, String correlationId) {
		return app.events.stream()
			.filter((event) -> correlationId.equals(event.correlationId()))
			.map((event) -> event.resultCode().wireName() + " " + event.principalClass().wireName())
			.toList();
	}

	public static Map<String, String> run(List<String[]> requests) {
		Map<String, String> report = new LinkedHashMap<>();
		// the JVM's URL stream handler factory is set once: by the Tomcat of an earlier test of this fork (another
		// class loader's) already; this Tomcat must not try again
		TomcatURLStreamHandlerFactory.disable();
		new WebApplicationContextRunner(AnnotationConfigServletWebServerApplicationContext::new)
			.withClassLoader(new FilteredClassLoader("org.springframework.security"))
			.withUserConfiguration(App.class)
			.withPropertyValues("server.port=0", "starintel.lease.store=memory",
					"starintel.lease.tenant=tenant-nosec", "starintel.lease.program=program-nosec",
					"starintel.lease.owner.service-principal=prn_nosec",
					"management.endpoints.web.exposure.include=health,targetleases",
					"spring.autoconfigure.exclude="
							+ "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration,"
							+ "org.springframework.boot.data.redis.autoconfigure.DataRedisRepositoriesAutoConfiguration")
			.run((context) -> {
				if (context.getStartupFailure() != null) {
					Throwable failure = context.getStartupFailure();
					StringBuilder causes = new StringBuilder();
					for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
						causes.append(cause).append(" <- ");
					}
					report.put("failure", causes.toString());
					return;
				}
				report.put("beans", "endpoint=" + context.getBeanNamesForType(TargetLeaseAdminEndpoint.class).length
						+ " operations=" + context.getBeanNamesForType(TargetLeaseAdminOperations.class).length
						+ " service=" + context.getBeanNamesForType(LeaseService.class).length
						+ " failClosed=" + context.containsBean("targetLeaseAdminFailClosedFilter"));
				int port = ((WebServerApplicationContext) context.getSourceApplicationContext()).getWebServer()
					.getPort();
				App app = context.getBean(App.class);
				HttpClient http = HttpClient.newBuilder()
					.version(HttpClient.Version.HTTP_1_1)
					.connectTimeout(Duration.ofSeconds(5))
					.build();
				Map<String, String> correlations = new LinkedHashMap<>();
				int n = 0;
				for (String[] request : requests) {
					String correlationId = "corr-nosec-" + (n++);
					String key = String.join(" ", request[0], request[1]);
					HttpResponse<String> response = http.send(request(port, correlationId, request),
							HttpResponse.BodyHandlers.ofString());
					report.put(key, response.statusCode() + " " + response.body());
					correlations.put(key, correlationId);
				}
				// the audit pipeline delivers in order: once the marker's event is in, every earlier request's events
				// are too, so each request's events are counted exactly, without waiting for a second one to show up
				http.send(request(port, "corr-nosec-marker", new String[] { "GET", "" }),
						HttpResponse.BodyHandlers.discarding());
				Awaitility.await()
					.atMost(Duration.ofSeconds(10))
					.until(() -> !audited(app, "corr-nosec-marker").isEmpty());
				correlations.forEach((key, correlationId) -> report.put(key + " audit",
						String.join(",", audited(app, correlationId))));
			});
		return report;
	}

}
