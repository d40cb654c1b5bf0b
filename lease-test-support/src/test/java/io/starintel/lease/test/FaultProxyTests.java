package io.starintel.lease.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The proxy's faults on a plain echo server: pause holds bytes (nothing lost, delivered in order on resume), delay
 * delivers late, a cut throws away what is held, and a target that refuses a connection does not stop the proxy
 * from accepting the next client (a killed primary behind a replication link).
 */
class FaultProxyTests {

	private ServerSocket echo;

	@BeforeEach
	void startEcho() throws IOException {
		this.echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(() -> {
			while (!this.echo.isClosed()) {
				try {
					Socket socket = this.echo.accept();
					Thread pump = new Thread(() -> {
						try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
							in.transferTo(out);
						}
						catch (IOException ex) {
							// closed
						}
					});
					pump.setDaemon(true);
					pump.start();
				}
				catch (IOException ex) {
					return;
				}
			}
		});
		acceptor.setDaemon(true);
		acceptor.start();
	}

	@AfterEach
	void stopEcho() throws IOException {
		this.echo.close();
	}

	@Test
	void pausedBytesAreHeldAndDeliveredInOrderOnResume() throws IOException {
		try (FaultProxy proxy = new FaultProxy(echoAddress()); Socket client = connect(proxy)) {
			assertThat(roundTrip(client, "one")).isEqualTo("one");
			proxy.pause(true);
			write(client, "two");
			write(client, "three");
			await().atMost(Duration.ofSeconds(5)).until(() -> proxy.heldBytes() == "twothree".length());
			client.setSoTimeout(300);
			assertThat(readOrTimeout(client, 8)).as("nothing comes back while paused").isNull();
			proxy.pause(false);
			client.setSoTimeout(5000);
			assertThat(read(client, 8)).isEqualTo("twothree");
			// the counter drops just after each write returns: the reply can reach the client a moment before
			await().atMost(Duration.ofSeconds(5)).until(() -> proxy.heldBytes() == 0);
			assertThat(proxy.discardedBytes()).isZero();
		}
	}

	@Test
	void delayedBytesArriveNoEarlierThanTheDelayEachWay() throws IOException {
		try (FaultProxy proxy = new FaultProxy(echoAddress()); Socket client = connect(proxy)) {
			proxy.delay(Duration.ofMillis(200));
			long started = System.nanoTime();
			assertThat(roundTrip(client, "late")).isEqualTo("late");
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
			proxy.delay(Duration.ZERO);
			started = System.nanoTime();
			assertThat(roundTrip(client, "soon")).isEqualTo("soon");
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(400));
		}
	}

	@Test
	void cutThrowsAwayWhatIsHeld() throws IOException {
		try (FaultProxy proxy = new FaultProxy(echoAddress()); Socket client = connect(proxy)) {
			proxy.pause(true);
			write(client, "lost");
			await().atMost(Duration.ofSeconds(5)).until(() -> proxy.heldBytes() == 4);
			proxy.cut();
			await().atMost(Duration.ofSeconds(5)).until(() -> proxy.discardedBytes() == 4 && proxy.heldBytes() == 0);
			client.setSoTimeout(5000);
			assertThat(client.getInputStream().read()).as("the client sees its connection end").isEqualTo(-1);
			proxy.pause(false);
			try (Socket again = connect(proxy)) {
				assertThat(roundTrip(again, "again")).as("the proxy still listens").isEqualTo("again");
			}
		}
	}

	@Test
	void aRefusedTargetConnectionClosesThatClientAndTheProxyKeepsAccepting() throws IOException {
		int nothing;
		try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			nothing = free.getLocalPort();
		}
		try (FaultProxy proxy = new FaultProxy(new InetSocketAddress(InetAddress.getLoopbackAddress(), nothing))) {
			for (int attempt = 1; attempt <= 2; attempt++) {
				try (Socket client = connect(proxy)) {
					client.setSoTimeout(5000);
					assertThat(client.getInputStream().read()).isEqualTo(-1);
				}
				int expected = attempt;
				await().atMost(Duration.ofSeconds(5)).until(() -> proxy.failedConnects() == expected);
			}
		}
	}

	@Test
	void forwardedConnectionsCountsEachClientConnectedToTheTarget() throws IOException {
		try (FaultProxy proxy = new FaultProxy(echoAddress())) {
			assertThat(proxy.forwardedConnections()).isZero();
			try (Socket first = connect(proxy); Socket second = connect(proxy)) {
				assertThat(roundTrip(first, "one")).isEqualTo("one");
				assertThat(roundTrip(second, "two")).isEqualTo("two");
				assertThat(proxy.forwardedConnections()).isEqualTo(2);
				assertThat(proxy.failedConnects()).isZero();
			}
		}
	}

	private InetSocketAddress echoAddress() {
		return new InetSocketAddress(InetAddress.getLoopbackAddress(), this.echo.getLocalPort());
	}

	private static Socket connect(FaultProxy proxy) throws IOException {
		Socket socket = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
		socket.setSoTimeout(5000);
		return socket;
	}

	private static String roundTrip(Socket client, String text) throws IOException {
		write(client, text);
		return read(client, text.length());
	}

	private static void write(Socket client, String text) throws IOException {
		client.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
		client.getOutputStream().flush();
	}

	private static String read(Socket client, int length) throws IOException {
		byte[] bytes = client.getInputStream().readNBytes(length);
		return new String(bytes, StandardCharsets.US_ASCII);
	}

	private static String readOrTimeout(Socket client, int length) throws IOException {
		try {
			return read(client, length);
		}
		catch (SocketTimeoutException ex) {
			return null;
		}
	}

}
