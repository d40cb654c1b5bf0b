package io.starintel.lease.it.fence;

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
 * A loopback TCP proxy in front of Redis for the checkpoint fault tests: it always forwards requests, drops replies
 * while told to (the command commits, the client never hears back), and {@link #cut()} closes every open connection
 * (the client reconnects and may re-send unanswered commands).
 */
final class CuttingRedisProxy implements AutoCloseable {

	private final ServerSocket listener;

	private final InetSocketAddress target;

	private final AtomicBoolean dropReplies = new AtomicBoolean();

	private final AtomicLong forwardedRequestBytes = new AtomicLong();

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	CuttingRedisProxy(InetSocketAddress target) throws IOException {
		this.target = target;
		this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "cutting-proxy-accept");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	int port() {
		return this.listener.getLocalPort();
	}

	void dropReplies(boolean drop) {
		this.dropReplies.set(drop);
	}

	long forwardedRequestBytes() {
		return this.forwardedRequestBytes.get();
	}

	/** Closes every open connection (the listener stays open). */
	void cut() throws IOException {
		for (Socket socket : this.sockets) {
			socket.close();
		}
		this.sockets.clear();
	}

	private void accept() {
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
						continue;
					}
					if (!replies) {
						this.forwardedRequestBytes.addAndGet(read);
					}
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException ex) {
				// one side closed: the other is closed with it
			}
		}, replies ? "cutting-proxy-replies" : "cutting-proxy-requests");
		thread.setDaemon(true);
		thread.start();
	}

	@Override
	public void close() throws IOException {
		this.listener.close();
		cut();
	}

}
