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

	private static final String PRIMARIES = "e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001 "
			+ "myself,master - 0 0 1 connected 0-5460\n"
			+ "67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002 master - 0 1426238316232 2 connected "
			+ "5461-16383\n";

	private static final String WITH_A_REPLICA = PRIMARIES
			+ "07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:30004@31004 slave "
			+ "e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 0 1426238317239 4 connected\n";

	@Test
	void aClusterPrimarysOwnViewThatListsAReplicaCountsBesideTheClientsView() {
		NodeState node = new NodeState("n", false, true);
		assertThat(node.asksClusterView()).isTrue();
		assertThat(node.topologyHasReplicas()).isFalse();
		node.refreshed("role:master\r\nconnected_slaves:0\r\n", WITH_A_REPLICA, 10_000);
		assertThat(node.topologyHasReplicas()).as("the node lists a replica; the client's view does not").isTrue();
		node.refreshed("role:master\r\nconnected_slaves:0\r\n", null, 11_000);
		assertThat(node.topologyHasReplicas()).as("not answered: what the node said stands").isTrue();
		node.refreshed("role:master\r\nconnected_slaves:0\r\n", "not a cluster view", 12_000);
		assertThat(node.topologyHasReplicas()).as("unreadable: what the node said stands").isTrue();
		node.refreshed("role:master\r\nconnected_slaves:0\r\n", PRIMARIES, 13_000);
		assertThat(node.topologyHasReplicas()).as("no replica in either view").isFalse();
		node.topologyHasReplicas(true);
		assertThat(node.topologyHasReplicas()).as("the client's view lists one").isTrue();
		assertThat(new NodeState("n", true).asksClusterView()).isFalse();
	}

	@Test
	void aDoubtedCountIsAskedAgainByTheNextCallerWithoutClaimingARefreshItself() {
		NodeState node = new NodeState("n", true);
		assertThat(node.claimRefresh(10_000, false)).isTrue();
		node.refreshed(TWO_REPLICAS, 10_002);
		node.doubt(); // a wait fell short
		assertThat(node.claimRefresh(10_050, false)).as("within the forced interval").isFalse();
		assertThat(node.claimRefresh(10_102, false)).as("the next caller asks again").isTrue();
		node.refreshed(TWO_REPLICAS, 10_110);
		assertThat(node.claimRefresh(10_300, false)).as("answered: the usual interval again").isFalse();
		assertThat(node.claimRefresh(11_110, false)).isTrue();
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

	/**
	 * A connection left on a demoted primary answers {@code INFO} as a replica, which reports no replica of its own:
	 * that is not the primary's count (a call on a connection that does reach the primary would be refused
	 * {@code replicas_unavailable} for it); the count stands, the node says a replica answered, and the next call asks
	 * again soon.
	 */
	@Test
	void aReplicasAnswerIsNotThePrimarysCount() {
		NodeState node = new NodeState("n", true);
		assertThat(node.claimRefresh(10_000, false)).isTrue();
		node.refreshed(TWO_REPLICAS, 10_002);
		assertThat(node.claimRefresh(10_200, true)).isTrue();
		node.refreshed("role:slave\r\nmaster_host:127.0.0.1\r\nmaster_link_status:up\r\nconnected_slaves:0\r\n",
				10_210);
		assertThat(node.onlineReplicas()).as("the primary's count stands").isEqualTo(2);
		assertThat(node.replicaAnswered()).isTrue();
		assertThat(node.pending()).as("its waiters are let go").isDone();
		assertThat(node.claimRefresh(10_320, false)).as("asked again within the forced interval").isTrue();
		node.refreshed(TWO_REPLICAS, 10_330);
		assertThat(node.replicaAnswered()).as("a primary answered").isFalse();
		assertThat(NodeState.isPrimary(TWO_REPLICAS)).isTrue();
		assertThat(NodeState.isPrimary("role:slave\r\n")).isFalse();
	}

}
