package io.starintel.lease.store.redis.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The store's connection pool lends open connections, and when none of its connections is open (all reconnecting on
 * Lettuce's back-off, e.g. after Sentinel demoted the primary they were connected to) it replaces one instead of
 * lending a connection that would queue the call until its deadline.
 */
class ConnectionPoolTests {

	/** A connection: open until the test closes it from the server side. */
	static final class Fake {

		volatile boolean open = true;

		volatile boolean closedByPool;

	}

	private final List<Fake> opened = new ArrayList<>();

	private final ConnectionPool<Fake> pool = new ConnectionPool<>(() -> {
		Fake fake = new Fake();
		this.opened.add(fake);
		return CompletableFuture.completedFuture(fake);
	}, (fake) -> fake.open, (fake) -> {
		fake.closedByPool = true;
		fake.open = false;
	}, 2);

	private long deadline() {
		return System.currentTimeMillis() + 1_000;
	}

	@Test
	void lendsIdleOpenConnectionsAndOpensUpToTheMaximum() throws Exception {
		ConnectionPool.Loan<Fake> first = this.pool.borrow(deadline());
		ConnectionPool.Loan<Fake> second = this.pool.borrow(deadline());
		assertThat(first.connection()).isNotSameAs(second.connection());
		assertThat(first.exclusive()).isTrue();
		ConnectionPool.Loan<Fake> third = this.pool.borrow(deadline());
		assertThat(third.exclusive()).as("at the maximum, an open connection is shared").isFalse();
		this.pool.release(first);
		assertThat(this.pool.borrow(deadline()).connection()).isSameAs(first.connection());
		assertThat(this.opened).hasSize(2);
	}

	@Test
	void anIdleConnectionThatIsReconnectingIsPassedOverForAnOpenOneAndKept() throws Exception {
		ConnectionPool.Loan<Fake> first = this.pool.borrow(deadline());
		ConnectionPool.Loan<Fake> second = this.pool.borrow(deadline());
		this.pool.release(second);
		this.pool.release(first); // idle: first, then second
		first.connection().open = false;
		ConnectionPool.Loan<Fake> loan = this.pool.borrow(deadline());
		assertThat(loan.connection()).isSameAs(second.connection());
		assertThat(loan.exclusive()).isTrue();
		assertThat(first.connection().closedByPool).as("kept for Lettuce's reconnect").isFalse();
		first.connection().open = true;
		assertThat(this.pool.borrow(deadline()).connection()).as("still idle").isSameAs(first.connection());
		assertThat(this.opened).hasSize(2);
	}

	@Test
	void whenNoConnectionIsOpenOneIsReplacedNotLentClosed() throws Exception {
		ConnectionPool.Loan<Fake> first = this.pool.borrow(deadline());
		ConnectionPool.Loan<Fake> second = this.pool.borrow(deadline());
		this.pool.release(first);
		this.pool.release(second);
		first.connection().open = false;
		second.connection().open = false;
		ConnectionPool.Loan<Fake> loan = this.pool.borrow(deadline());
		assertThat(loan.connection().open).as("the lent connection is open").isTrue();
		assertThat(this.opened).hasSize(3);
		assertThat(this.opened.subList(0, 2)).filteredOn((fake) -> fake.closedByPool).hasSize(1);
		assertThat(this.pool.size()).isEqualTo(2);
	}

	@Test
	void aReplacedConnectionGivenBackIsNotLentAgain() throws Exception {
		ConnectionPool.Loan<Fake> first = this.pool.borrow(deadline());
		ConnectionPool.Loan<Fake> second = this.pool.borrow(deadline());
		first.connection().open = false;
		second.connection().open = false;
		this.pool.borrow(deadline()); // replaces one of the two
		Fake replaced = first.connection().closedByPool ? first.connection() : second.connection();
		this.pool.release(replaced == first.connection() ? first : second);
		for (int i = 0; i < 3; i++) {
			assertThat(this.pool.borrow(deadline()).connection()).isNotSameAs(replaced);
		}
	}

	/**
	 * Connections found on a node that is not a primary: every one is kept from later calls at once (the next borrow
	 * opens a new one), and each is closed only once the commands already written on it are answered (its calls get
	 * their own replies), or after the grace period.
	 */
	@Test
	void retiredConnectionsAreNotLentAgainAndCloseOnceDrained() throws Exception {
		ConnectionPool.Loan<Fake> first = this.pool.borrow(deadline());
		ConnectionPool.Loan<Fake> second = this.pool.borrow(deadline());
		this.pool.release(first);
		CompletableFuture<Void> firstDrained = new CompletableFuture<>();
		CompletableFuture<Void> secondDrained = new CompletableFuture<>();
		this.pool.retireAll((fake) -> (fake == first.connection()) ? firstDrained : secondDrained, 60_000);
		assertThat(this.pool.size()).isZero();
		ConnectionPool.Loan<Fake> next = this.pool.borrow(deadline());
		assertThat(next.connection()).isNotSameAs(first.connection()).isNotSameAs(second.connection());
		assertThat(next.exclusive()).isTrue();
		assertThat(first.connection().closedByPool).as("not before its commands are answered").isFalse();
		firstDrained.complete(null);
		assertThat(first.connection().closedByPool).isTrue();
		this.pool.release(second); // lent while retired: not taken back
		assertThat(this.pool.borrow(deadline()).connection()).isNotSameAs(second.connection());
		secondDrained.completeExceptionally(new IllegalStateException("connection lost"));
		assertThat(second.connection().closedByPool).as("closed whatever the drain's outcome").isTrue();
	}

	@Test
	void aRetiredConnectionWhoseCommandsAreNeverAnsweredIsClosedAfterTheGracePeriod() throws Exception {
		ConnectionPool.Loan<Fake> loan = this.pool.borrow(deadline());
		this.pool.retireAll((fake) -> new CompletableFuture<Void>(), 50);
		await("closed after the grace period").atMost(Duration.ofSeconds(5))
			.until(() -> loan.connection().closedByPool);
	}

}
