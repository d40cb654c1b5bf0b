package io.starintel.lease.store.redis.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The replica count of a node: refreshed at most so often, and never stopped by a refresh that got no answer. */
class NodeStateTests {

	private static final String TWO_REPLICAS = "role:master\r\nconnected_slaves:2\r\n"
			+ "slave0:ip=127.0.0.1,port=7001,state=online,offset=1,lag=0\r\n"
			+ "slave1:ip=127.0.0.1,port=7002,state=online,offset=1,lag=0\r\n";

	@Test
	void oneRefreshAtATimeAndNotMoreOftenThanTheInterval() {
		NodeState node = new NodeState("n", true);
		assertThat(node.claimRefresh(10_000, false)).isTrue();
		assertThat(node.claimRefresh(10_001, true)).as("one in flight").isFalse();
		node.refreshed(TWO_REPLICAS, 10_002);
		assertThat(node.onlineReplicas()).isEqualTo(2);
		assertThat(node.claimRefresh(10_050, true)).as("forced, but within its interval").isFalse();
		assertThat(node.claimRefresh(10_102, true)).as("forced").isTrue();
	}

	@Test
	void aRefreshThatGotNoAnswerDoesNotStopTheNextOnes() {
		NodeState node = new NodeState("n", true);
		assertThat(node.claimRefresh(10_000, true)).isTrue();
		var stalled = node.pending();
		// the INFO went out on a connection that lost its server: no answer, no failure
		assertThat(node.claimRefresh(10_000 + NodeState.STALLED_REFRESH_MILLIS - 1, true)).isFalse();
		assertThat(node.claimRefresh(10_000 + NodeState.STALLED_REFRESH_MILLIS, true)).isTrue();
		assertThat(stalled).as("the stalled refresh's waiters are let go").isDone();
		node.refreshed(TWO_REPLICAS, 11_001);
		assertThat(node.onlineReplicas()).isEqualTo(2);
	}

}
