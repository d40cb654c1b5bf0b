package io.starintel.lease.it.job;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP proxy in front of Redis that can be told to go silent: requests still reach Redis, replies are
 * dropped, as in a network partition seen from the worker.
 */
final class SilencingProxy implements AutoCloseable {

	private final ServerSocket listener;

	private final InetSocketAddress target;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private volatile boolean silent;

	SilencingProxy(InetSocketAddress target) throws IOException {
		this.target = target;
		this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "silencing-proxy-accept");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	int port() {
		return this.listener.getLocalPort();
	}

	void silence() {
		this.silent = true;
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
					if (replies && this.silent) {
						continue;
					}
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException ex) {
				// one side closed
			}
		}, replies ? "silencing-proxy-replies" : "silencing-proxy-requests");
		thread.setDaemon(true);
		thread.start();
	}

	@Override
	public void close() throws IOException {
		this.listener.close();
		for (Socket socket : this.sockets) {
			socket.close();
		}
	}

}
