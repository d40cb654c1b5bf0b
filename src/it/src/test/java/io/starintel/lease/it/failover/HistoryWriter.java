package io.starintel.lease.it.failover;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Appends history lines to a file from any thread (one writer thread, flushed every 200 ms and on close). */
final class HistoryWriter implements AutoCloseable {

	private final BlockingQueue<FailoverEvent> queue = new LinkedBlockingQueue<>();

	private final BufferedWriter out;

	private final Thread thread;

	private volatile boolean closing;

	HistoryWriter(Path file) {
		try {
			Files.createDirectories(file.toAbsolutePath().getParent());
			this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.thread = new Thread(this::drain, "history-writer");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	void add(FailoverEvent event) {
		this.queue.add(event);
	}

	private void drain() {
		List<FailoverEvent> batch = new ArrayList<>();
		try {
			while (!this.closing || !this.queue.isEmpty()) {
				FailoverEvent first = this.queue.poll(200, TimeUnit.MILLISECONDS);
				if (first != null) {
					batch.add(first);
					this.queue.drainTo(batch);
					for (FailoverEvent event : batch) {
						this.out.write(event.toLine());
						this.out.newLine();
					}
					batch.clear();
				}
				this.out.flush();
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void close() {
		this.closing = true;
		try {
			this.thread.join(TimeUnit.SECONDS.toMillis(30));
			this.out.close();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Reads a history file. */
	static List<FailoverEvent> read(Path file) {
		try {
			return Files.readAllLines(file, StandardCharsets.UTF_8)
				.stream()
				.filter((line) -> !line.isBlank())
				.map(FailoverEvent::parse)
				.toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
