package io.starintel.lease.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.AuditSink;

/**
 * The audit events of the application under test, captured in memory: an {@link AuditSink} bean that
 * {@link AutoConfigureLeaseTest} registers beside the default sinks (the log line and the application event), so it
 * receives every event every other sink receives, through the same asynchronous pipeline. Delivery is asynchronous
 * (about 10 ms): use {@link #await} or the AssertJ assertions, which wait (bounded) for an expected event.
 *
 * <p>Before each test method the tester waits (bounded) until the pipeline has delivered what was submitted before,
 * then forgets it; events of the leases acquired in an earlier test method (a job of that test still running or
 * releasing) are not captured afterwards. So no event of one test shows up in the next.
 */
public final class CapturedAuditEvents implements AuditSink {

	/** How long {@link #await(Predicate)} and the assertions wait by default. */
	public static final Duration DEFAULT_WAIT = Duration.ofSeconds(5);

	private final List<AuditEvent> events = new ArrayList<>();

	/** The leases of earlier test methods, whose events are no longer captured. */
	private final Set<String> earlierLeases = new HashSet<>();

	@Override
	public void record(AuditEvent event) {
		synchronized (this) {
			if (event.leaseId() != null && this.earlierLeases.contains(event.leaseId())) {
				return;
			}
			this.events.add(event);
			notifyAll();
		}
	}

	/** Every event so far, in delivery order. */
	public synchronized List<AuditEvent> events() {
		return List.copyOf(this.events);
	}

	/** The events of one type. */
	public List<AuditEvent> ofType(AuditEventType type) {
		return matching((event) -> event.eventType() == type);
	}

	/** The events of one target id. */
	public List<AuditEvent> forTarget(String targetId) {
		return matching((event) -> targetId.equals(event.targetId()));
	}

	/** The events matching {@code filter}. */
	public synchronized List<AuditEvent> matching(Predicate<AuditEvent> filter) {
		return this.events.stream().filter(filter).toList();
	}

	/** The first event matching {@code filter}, waiting up to {@link #DEFAULT_WAIT}; empty when none came. */
	public Optional<AuditEvent> await(Predicate<AuditEvent> filter) {
		return await(filter, DEFAULT_WAIT);
	}

	/** The first event matching {@code filter}, waiting up to {@code timeout} (never a sleep: wait/notify). */
	public Optional<AuditEvent> await(Predicate<AuditEvent> filter, Duration timeout) {
		Objects.requireNonNull(filter, "filter");
		long deadline = System.nanoTime() + timeout.toNanos();
		synchronized (this) {
			int checked = 0;
			while (true) {
				for (; checked < this.events.size(); checked++) {
					if (filter.test(this.events.get(checked))) {
						return Optional.of(this.events.get(checked));
					}
				}
				long remainingMs = (deadline - System.nanoTime()) / 1_000_000;
				if (remainingMs <= 0) {
					return Optional.empty();
				}
				try {
					wait(remainingMs);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return Optional.empty();
				}
			}
		}
	}

	/** An event of {@code type} for {@code targetId}, waiting up to {@link #DEFAULT_WAIT}. */
	public Optional<AuditEvent> await(AuditEventType type, String targetId) {
		return await((event) -> event.eventType() == type && targetId.equals(event.targetId()));
	}

	/** Forgets the events so far (the tester does it before each test method). */
	public synchronized void clear() {
		this.events.clear();
	}

	/** Stops capturing the events of these leases (acquired in a test method that has ended); forgets those so far. */
	synchronized void forgetLeases(Collection<String> leaseIds) {
		this.earlierLeases.addAll(leaseIds);
		this.events.removeIf((event) -> event.leaseId() != null && this.earlierLeases.contains(event.leaseId()));
	}

	/** Whether the lease's events are no longer captured ({@link #forgetLeases}). */
	synchronized boolean isForgotten(String leaseId) {
		return this.earlierLeases.contains(leaseId);
	}

	@Override
	public String toString() {
		return "CapturedAuditEvents[" + events().stream().map((e) -> e.eventType().wireName() + "/"
				+ e.resultCode().wireName()).toList() + "]";
	}

}
