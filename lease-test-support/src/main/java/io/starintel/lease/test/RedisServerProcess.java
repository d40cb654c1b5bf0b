package io.starintel.lease.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import static org.awaitility.Awaitility.await;

/**
 * The one launcher of throw-away {@code redis-server} / {@code valkey-server} processes that tests start
 * themselves: loopback only, no persistence ({@code --save "" --appendonly no}), its files and log in the given
 * folder. A restart therefore loses every key (the data-loss row of the contract); cluster nodes add their own
 * arguments. Every wait has a deadline.
 *
 * <p>The failover suites also {@link #kill() kill -9} a server (nothing flushed, connections reset), freeze it
 * ({@link #suspend() SIGSTOP}, {@link #resume() SIGCONT}) and start a server from a configuration file
 * ({@link #startWithConfigFile}: a sentinel, which needs a file it can rewrite).
 */
public final class RedisServerProcess implements AutoCloseable {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

	private final List<String> command;

	private final int port;

	private final Path directory;

	private final Path log;

	private @Nullable Process process;

	private volatile boolean suspended;

	private RedisServerProcess(Path binary, @Nullable Path configFile, int port, Path directory,
			List<String> extraArguments) {
		this.port = port;
		this.directory = directory;
		this.log = directory.resolve("redis-" + port + ".log");
		List<String> command = new ArrayList<>(List.of(binary.toString()));
		if (configFile != null) {
			command.add(configFile.toString()); // the server reads a configuration file only as its first argument
		}
		command.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
				"no", "--dir", directory.toString()));
		command.addAll(extraArguments);
		this.command = List.copyOf(command);
	}

	/**
	 * Starts {@code binary} on {@code port} with its data in {@code directory} and waits (bounded) until it answers
	 * {@code PING}.
	 */
	public static RedisServerProcess start(Path binary, int port, Path directory, String... extraArguments)
			throws IOException {
		RedisServerProcess server = launch(binary, port, directory, extraArguments);
		server.awaitPing();
		return server;
	}

	/** Starts {@code binary} without waiting: for callers that start several nodes and then wait for all. */
	public static RedisServerProcess launch(Path binary, int port, Path directory, String... extraArguments)
			throws IOException {
		RedisServerProcess server = new RedisServerProcess(binary, null, port, directory, List.of(extraArguments));
		server.spawn();
		return server;
	}

	/**
	 * Starts {@code binary configFile --port port ... extraArguments} and waits until it answers {@code PING}: for a
	 * sentinel ({@code extraArguments} {@code --sentinel}), which refuses to run without a configuration file it can
	 * rewrite. The file is the server's own from then on (a sentinel rewrites it with what it learns).
	 */
	public static RedisServerProcess startWithConfigFile(Path binary, Path configFile, int port, Path directory,
			String... extraArguments) throws IOException {
		RedisServerProcess server = new RedisServerProcess(binary, configFile, port, directory,
				List.of(extraArguments));
		server.spawn();
		server.awaitPing();
		return server;
	}

	/** A port that was free on the loopback interface a moment ago. */
	public static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	/** The client port. */
	public int port() {
		return this.port;
	}

	/** The folder holding the server's files and its log. */
	public Path directory() {
		return this.directory;
	}

	/** Whether the process is running. */
	public boolean isAlive() {
		Process current = this.process;
		return current != null && current.isAlive();
	}

	/** The operating system's process id of the running server. */
	public long pid() {
		Process current = this.process;
		if (current == null) {
			throw new IllegalStateException("server on port " + this.port + " is not running");
		}
		return current.pid();
	}

	/**
	 * Kills the server with SIGKILL (kill -9: nothing flushed, no shutdown handshake, its connections reset) and
	 * waits (bounded) until the process is gone. {@link #restartEmpty()} starts it again, empty.
	 */
	public void kill() {
		Process current = this.process;
		if (current == null) {
			return;
		}
		current.destroyForcibly(); // SIGKILL on Linux; works on a suspended process too
		try {
			if (!current.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException("server on port " + this.port + " survived SIGKILL");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.process = null;
		this.suspended = false;
	}

	/**
	 * Freezes the server with SIGSTOP: it answers nothing (clients, replicas, cluster bus) until {@link #resume()},
	 * while the kernel still buffers what peers send it.
	 */
	public void suspend() {
		signal("STOP");
		this.suspended = true;
	}

	/** Lets a {@link #suspend() suspended} server run again (SIGCONT). */
	public void resume() {
		signal("CONT");
		this.suspended = false;
	}

	/** Whether the server is {@link #suspend() suspended}. */
	public boolean isSuspended() {
		return this.suspended;
	}

	private void signal(String signal) {
		long pid = pid();
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
			if (!kill.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + pid + " failed: "
						+ new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("could not send SIG" + signal + " to " + pid, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while sending SIG" + signal + " to " + pid, ex);
		}
	}

	/** The server's log so far (for failure messages). */
	public String log() {
		try {
			return Files.exists(this.log) ? Files.readString(this.log) : "";
		}
		catch (IOException ex) {
			return "(log unreadable: " + ex.getMessage() + ")";
		}
	}

	/** Waits (at most 20 s) until the server answers {@code PING}; fails at once if the process has exited. */
	public void awaitPing() {
		await("server on port " + this.port + " answering PING").atMost(START_TIMEOUT)
			.pollInterval(Duration.ofMillis(50))
			.until(() -> {
				if (!isAlive()) {
					throw new IllegalStateException("server on port " + this.port + " exited: " + log());
				}
				return answersPing(this.port);
			});
	}

	/** Stops the server (losing everything) and starts a fresh one with the same arguments on the same port. */
	public void restartEmpty() throws IOException {
		stop();
		spawn();
		awaitPing();
	}

	/** Stops the process: a TERM, then a KILL after 10 s; returns once the port no longer answers. */
	public void stop() {
		Process current = this.process;
		if (current == null) {
			return;
		}
		if (this.suspended && current.isAlive()) {
			resume(); // a stopped process would not act on the TERM
		}
		current.destroy();
		try {
			if (!current.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				current.destroyForcibly().waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			current.destroyForcibly();
		}
		this.process = null;
		this.suspended = false;
		await("server on port " + this.port + " gone").atMost(STOP_TIMEOUT).until(() -> !answersPing(this.port));
	}

	@Override
	public void close() {
		stop();
	}

	/** Whether something on {@code 127.0.0.1:port} answers a RESP {@code PING} with {@code +PONG} within 1 s. */
	public static boolean answersPing(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			byte[] reply = in.readNBytes(7);
			return new String(reply, StandardCharsets.US_ASCII).startsWith("+PONG");
		}
		catch (IOException ex) {
			return false;
		}
	}

	private void spawn() throws IOException {
		Files.createDirectories(this.directory);
		Process started = new ProcessBuilder(this.command).directory(this.directory.toFile())
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(this.log.toFile()))
			.start();
		started.getOutputStream().close();
		this.process = started;
	}

}
