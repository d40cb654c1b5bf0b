package io.starintel.lease.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one loopback TCP proxy of the fault suites, in front of a Redis/Valkey server (or any TCP service). It always
 * forwards requests, and injects faults on demand:
 *
 * <ul>
 * <li>{@link #dropReplies(boolean) dropping replies}: the command reaches the server and commits, the client never
 * hears back (a lost reply, or a partition that silences the backend);</li>
 * <li>{@link #cut() cutting} every open connection: the client reconnects (through the proxy, which keeps
 * listening) and may re-send the commands it has no answer for; bytes the proxy still holds (paused or delayed)
 * are thrown away, as a dead sender's unsent buffers are;</li>
 * <li>{@link #pause(boolean) pausing} forwarding in both directions: every byte read from either side is held in
 * the proxy (the connections stay open, nothing is lost) until forwarding resumes;</li>
 * <li>{@link #delay(Duration) delaying} forwarding: every byte is written no earlier than the delay after it was
 * read (a delay line, not a throttle: throughput is unchanged).</li>
 * </ul>
 *
 * <p>Pause and delay make a replication link lag on demand: a replica that {@code REPLICAOF}s the proxy's port
 * receives the primary's stream late (or not at all while paused); {@link #cut()} after killing the primary then
 * loses exactly what the replica had not received.
 *
 * <p>The byte counters are the evidence a test waits for: {@link #forwardedRequestBytes()} that a command was
 * submitted, {@link #droppedReplyBytes()} that the server executed a command whose reply was lost,
 * {@link #heldBytes()} what is read but not yet forwarded.
 */
public final class FaultProxy implements AutoCloseable {

	private static final Chunk END = new Chunk(new byte[0], 0);

	private final ServerSocket listener;

	private final InetSocketAddress target;

	private final AtomicBoolean dropReplies = new AtomicBoolean();

	private final AtomicLong forwardedRequestBytes = new AtomicLong();

	private final AtomicLong droppedReplyBytes = new AtomicLong();

	private final AtomicLong heldBytes = new AtomicLong();

	private final AtomicLong discardedBytes = new AtomicLong();

	private final AtomicLong failedConnects = new AtomicLong();

	private final AtomicLong forwardedConnections = new AtomicLong();

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	/** Guards {@link #paused} and {@link #delayNanos}; notified when either changes. */
	private final Object gate = new Object();

	private boolean paused;

	private long delayNanos;

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

	/** The address the proxy forwards to. */
	public InetSocketAddress target() {
		return this.target;
	}

	/** From now on, drop (or forward again) every reply; requests are always forwarded. */
	public void dropReplies(boolean drop) {
		this.dropReplies.set(drop);
	}

	/**
	 * Holds (or forwards again) every byte in both directions. Held bytes are forwarded in order once resumed, unless
	 * a {@link #cut()} or {@link #close()} throws them away first. Takes effect for every byte not yet written.
	 */
	public void pause(boolean pause) {
		synchronized (this.gate) {
			this.paused = pause;
			this.gate.notifyAll();
		}
	}

	/** Whether forwarding is paused. */
	public boolean isPaused() {
		synchronized (this.gate) {
			return this.paused;
		}
	}

	/** Forwards every byte no earlier than {@code delay} after it was read ({@link Duration#ZERO}: at once). */
	public void delay(Duration delay) {
		synchronized (this.gate) {
			this.delayNanos = Math.max(0, delay.toNanos());
			this.gate.notifyAll();
		}
	}

	/** Request bytes forwarded so far, counted once written to the server (evidence that a command was submitted). */
	public long forwardedRequestBytes() {
		return this.forwardedRequestBytes.get();
	}

	/** Reply bytes dropped so far (evidence that the server has executed a command whose reply was lost). */
	public long droppedReplyBytes() {
		return this.droppedReplyBytes.get();
	}

	/** Bytes read from one side and not yet written to the other (held by a pause or a delay). */
	public long heldBytes() {
		return this.heldBytes.get();
	}

	/** Held bytes that a {@link #cut()}, a {@link #close()} or a closed peer threw away, so far. */
	public long discardedBytes() {
		return this.discardedBytes.get();
	}

	/** Accepted client connections whose connection to the target failed (the client was closed at once). */
	public long failedConnects() {
		return this.failedConnects.get();
	}

	/** Client connections accepted and connected to the target so far (the proxy forwards each one's bytes). */
	public long forwardedConnections() {
		return this.forwardedConnections.get();
	}

	/** Closes every open connection, throwing away what the proxy holds; the listener stays open. */
	public void cut() throws IOException {
		for (Socket socket : this.sockets) {
			socket.close();
		}
		this.sockets.clear();
		synchronized (this.gate) {
			this.gate.notifyAll();
		}
	}

	private void acceptConnections() {
		while (!this.listener.isClosed()) {
			Socket client;
			try {
				client = this.listener.accept();
			}
			catch (IOException ex) {
				return;
			}
			Socket server = new Socket();
			try {
				server.connect(this.target, 2000);
				client.setTcpNoDelay(true);
				server.setTcpNoDelay(true);
			}
			catch (IOException ex) {
				// the target is down (e.g. a killed primary): refuse this client, keep accepting
				this.failedConnects.incrementAndGet();
				closeQuietly(client);
				closeQuietly(server);
				continue;
			}
			this.sockets.add(client);
			this.sockets.add(server);
			this.forwardedConnections.incrementAndGet();
			pump(client, server, false);
			pump(server, client, true);
		}
	}

	/**
	 * One direction of a connection: a reader that takes bytes off {@code from} as they arrive, and a writer that
	 * writes them to {@code to} when the gate allows (not paused, delay elapsed).
	 */
	private void pump(Socket from, Socket to, boolean replies) {
		BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
		String direction = replies ? "replies" : "requests";
		Thread reader = new Thread(() -> {
			byte[] buffer = new byte[16 * 1024];
			try {
				InputStream in = from.getInputStream();
				int read;
				while ((read = in.read(buffer)) >= 0) {
					if (replies && this.dropReplies.get()) {
						this.droppedReplyBytes.addAndGet(read);
						continue;
					}
					this.heldBytes.addAndGet(read);
					queue.add(new Chunk(Arrays.copyOf(buffer, read), System.nanoTime()));
				}
			}
			catch (IOException ex) {
				// closed (cut, close, or the peer went away): the writer delivers or discards what is queued
			}
			queue.add(END);
		}, "fault-proxy-" + direction + "-in");
		Thread writer = new Thread(() -> {
			Chunk chunk = null;
			try {
				OutputStream out = to.getOutputStream();
				while (true) {
					chunk = queue.poll(100, TimeUnit.MILLISECONDS);
					if (chunk == null) {
						if (to.isClosed()) {
							break;
						}
						continue;
					}
					if (chunk == END) {
						break;
					}
					if (!awaitGate(chunk, to)) {
						break;
					}
					out.write(chunk.bytes);
					out.flush();
					this.heldBytes.addAndGet(-chunk.bytes.length);
					if (!replies) {
						this.forwardedRequestBytes.addAndGet(chunk.bytes.length);
					}
					chunk = null;
				}
			}
			catch (IOException ex) {
				// the other side is gone
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			if (chunk != null) {
				discard(chunk);
			}
			// what is still queued never reaches the other side
			for (Chunk left; (left = queue.poll()) != null;) {
				discard(left);
			}
			closeQuietly(to);
			closeQuietly(from);
			this.sockets.remove(to);
			this.sockets.remove(from);
		}, "fault-proxy-" + direction + "-out");
		reader.setDaemon(true);
		writer.setDaemon(true);
		reader.start();
		writer.start();
	}

	/** Waits until the chunk may be written; false when its socket was closed meanwhile. */
	private boolean awaitGate(Chunk chunk, Socket to) throws InterruptedException {
		synchronized (this.gate) {
			while (!to.isClosed()) {
				long waitNanos = this.paused ? TimeUnit.MILLISECONDS.toNanos(100)
						: chunk.readAtNanos + this.delayNanos - System.nanoTime();
				if (waitNanos <= 0) {
					return true;
				}
				TimeUnit.NANOSECONDS.timedWait(this.gate, Math.min(waitNanos, TimeUnit.MILLISECONDS.toNanos(100)));
			}
			return false;
		}
	}

	private void discard(Chunk chunk) {
		if (chunk != END) {
			this.heldBytes.addAndGet(-chunk.bytes.length);
			this.discardedBytes.addAndGet(chunk.bytes.length);
		}
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
	}

	/** Stops listening and closes every open connection (throwing away what the proxy holds). */
	@Override
	public void close() throws IOException {
		this.listener.close();
		cut();
	}

	private record Chunk(byte[] bytes, long readAtNanos) {

	}

}
