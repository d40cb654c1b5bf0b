package io.starintel.lease.it.failover;

import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RunsOn;

/**
 * {@link FailoverLoadTests} on Valkey 8 (servers, sentinel and cluster). JUnit's conditions are not inherited: the
 * subclass repeats {@code -Dfailover.load=off} (before, scripts/test.sh's second run ran it all the same).
 */
@RunsOn(RedisServerKind.VALKEY)
@DisabledIfSystemProperty(named = "failover.load", matches = "off|false")
class ValkeyFailoverLoadTests extends FailoverLoadTests {

}
