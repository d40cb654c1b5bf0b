package io.starintel.lease.autoconfigure.fence;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import io.starintel.lease.core.internal.PropertyProblems;

/**
 * Configuration of fenced job checkpoints ({@code starintel.lease.fence.checkpoint.*}).
 *
 * @param retention How long each checkpoint write's decision is kept (one Redis key per write), so that a re-sent
 * write is answered from its first run; at least the longest a client may retry a write.
 */
@ConfigurationProperties("starintel.lease.fence.checkpoint")
public record FenceCheckpointProperties(@DefaultValue("24h") Duration retention) {

	/** Validates the value, naming the property. */
	public FenceCheckpointProperties {
		PropertyProblems problems = new PropertyProblems("starintel.lease.fence.checkpoint.");
		problems.positive("retention", retention);
		problems.throwIfAny("Set starintel.lease.fence.checkpoint.retention to a positive duration; see "
				+ "docs/fencing.md.");
	}

}
