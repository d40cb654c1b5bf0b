package io.starintel.lease.job;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.starintel.lease.context.LeaseContext;

/** What the leased test methods observed (a plain bean, so tests read it without going through a proxy). */
public class JobState {

	public final AtomicInteger runs = new AtomicInteger();

	public final List<LeaseContext> seen = new CopyOnWriteArrayList<>();

	public final AtomicReference<LeaseContext> blockedContext = new AtomicReference<>();

	public final CountDownLatch started = new CountDownLatch(1);

	public final CountDownLatch proceed = new CountDownLatch(1);

	public volatile boolean interrupted;

}
