package io.starintel.lease.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one loopback TCP proxy of the fault suites, in front of a Redis/Valkey server (or any TCP service). It always
 * forwards requests, and injects two faults on demand:
 *
 * <ul>
 * <li>{@link #dropReplies(boolean) dropping replies}: the command reaches the server and commits, the client never
 * hears back (a lost reply, or a partition that silences the backend);</li>
 * <li>{@link #cut() cutting} every open connection: the client reconnects (through the proxy, which keeps
 * listening) and may re-send the commands it has no answer for.</li>
 * </ul>
 *
 * <p>The byte counters are the evidence a test waits for: {@link #forwardedRequestBytes()} that a command was
 * submitted, {@link #droppedReplyBytes()} that the server executed a command whose reply was lost.
 */
public final class FaultProxy implements AutoCloseable {

	private final ServerSocket listener;

	private final InetSocketAddress target;

	private final AtomicBoolean dropReplies = new AtomicBoolean();

	private final AtomicLong forwardedRequestBytes = new AtomicLong();

	private final AtomicLong droppedReplyBytes = new AtomicLong();

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	/** Starts listening on a free loopback port, forwarding to {@code target}. */
	public FaultProxy(InetSocketAddress target) throws IOException {
		this.target = target;
		this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::acceptConnections, "fault-proxy-accept");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/** The loopback port clients connect to. */
	public int port() {
		return this.listener.getLocalPort();
	}

	/** From now on, drop (or forward again) every reply; requests are always forwarded. */
	public void dropReplies(boolean drop) {
		this.dropReplies.set(drop);
	}

	/** Request bytes forwarded so far, counted once written to the server (evidence that a command was submitted). */
	public long forwardedRequestBytes() {
		return this.forwardedRequestBytes.get();
	}

	/** Reply bytes dropped so far (evidence that the server has executed a command whose reply was lost). */
	public long droppedReplyBytes() {
		return this.droppedReplyBytes.get();
	}

	/** Closes every open connection; the listener stays open, so clients can reconnect. */
	public void cut() throws IOException {
		for (Socket socket : this.sockets) {
			socket.close();
		}
		this.sockets.clear();
	}

	private void acceptConnections() {
		while (!this.listener.isClosed()) {
			try {
				Socket client = this.listener.accept();
				Socket server = new Socket();
				server.connect(this.target, 2000);
				this.sockets.add(client);
				this.sockets.add(server);
				pump(client, server, false);
				pump(server, client, true);
			}
			catch (IOException ex) {
				return;
			}
		}
	}

	private void pump(Socket from, Socket to, boolean replies) {
		Thread thread = new Thread(() -> {
			byte[] buffer = new byte[16 * 1024];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					if (replies && this.dropReplies.get()) {
						this.droppedReplyBytes.addAndGet(read);
						continue;
					}
					out.write(buffer, 0, read);
					out.flush();
					if (!replies) {
						this.forwardedRequestBytes.addAndGet(read);
					}
				}
			}
			catch (IOException ex) {
				// one side closed: try-with-resources closes the other with it
			}
		}, replies ? "fault-proxy-replies" : "fault-proxy-requests");
		thread.setDaemon(true);
		thread.start();
	}

	/** Stops listening and closes every open connection. */
	@Override
	public void close() throws IOException {
		this.listener.close();
		cut();
	}

}
