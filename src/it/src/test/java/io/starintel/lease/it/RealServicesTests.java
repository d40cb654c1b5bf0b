package io.starintel.lease.it;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Properties;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RedisServers;
import io.starintel.lease.test.TestServers;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Proves the real-service test setup: the servers answer at the endpoints the suites use (lease-test-support's
 * {@code TestServers}: their containers, or the local servers of scripts/services.sh through the environment variables
 * first, then the local defaults).
 */
class RealServicesTests {


	@Test
	void redisAnswersPing() {
		RedisClient client = RedisClient.create(TestServers.redisUri().toString());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			assertThat(connection.sync().ping()).isEqualTo("PONG");
		}
		finally {
			client.shutdown();
		}
	}

	@Test
	void valkeyAnswersAndIsValkey() {
		LettuceConnectionFactory factory = RedisServers.factory(RedisServerKind.VALKEY);
		try (RedisConnection connection = factory.getConnection()) {
			Properties info = connection.serverCommands().info("server");
			assertThat(info.getProperty("server_name")).isEqualTo("valkey");
			assertThat(info.getProperty("valkey_version")).isNotBlank();
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void rabbitMqAcceptsConnections() throws Exception {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(TestServers.rabbitHost(), TestServers.rabbitPort()), 5000);
			assertThat(socket.isConnected()).isTrue();
		}
	}

	@Test
	void couchDbCompatibleServerAnswers() throws Exception {
		HttpResponse<String> response = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create(TestServers.pouchDbUrl() + "/"))
				.timeout(Duration.ofSeconds(5))
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).contains("\"version\"");
	}

}
