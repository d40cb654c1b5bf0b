package io.starintel.lease.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseConfigurationException;
import io.starintel.lease.core.LeaseConfigurationException.Problem;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.SweepRequest;

/**
 * The expiry sweeper ({@code starintel.lease.sweeper.*}). Invalid values fail start-up naming the property.
 *
 * @param enabled whether the expiry sweeper runs (it ends expired leases promptly and emits their
 * target_lease_expire audit events)
 * @param interval time between the end of one sweeper tick and the start of the next
 * @param batchSize leases the first sweep call of a program in a tick ends (one atomic backend step), 1..1000;
 * doubled, up to 1000, while due leases remain
 * @param maxBatchesPerTick most sweep calls per program and tick; a larger backlog waits for the next tick
 * @param additionalPrograms programs swept on every tick besides starintel.lease.tenant/program, each as
 * tenant/program
 * @param discoverPrograms whether to sweep every program the lease store reports leases in (programs used only over
 * the worker API, for instance), besides the configured ones
 * @param share whether instances share the programs: each sweep claims its program for three intervals under this
 * instance's service instance id, and a program another instance claims is left to it
 */
@ConfigurationProperties("starintel.lease.sweeper")
public record LeaseSweeperProperties(@DefaultValue("true") boolean enabled, @DefaultValue("1s") Duration interval,
		@DefaultValue("100") int batchSize, @DefaultValue("100") int maxBatchesPerTick,
		@DefaultValue List<String> additionalPrograms, @DefaultValue("true") boolean discoverPrograms,
		@DefaultValue("true") boolean share) {

	private static final String PREFIX = "starintel.lease.sweeper.";

	/** Validates every value, reporting every problem at once. */
	public LeaseSweeperProperties {
		List<Problem> problems = new ArrayList<>();
		if (interval == null || interval.toMillis() < 10 || interval.compareTo(Duration.ofMinutes(10)) > 0) {
			problems.add(new Problem(PREFIX + "interval", "must be between 10ms and 10m"));
		}
		if (batchSize < 1 || batchSize > SweepRequest.MAX_BATCH) {
			problems.add(new Problem(PREFIX + "batch-size", "(" + batchSize + ") must be 1.." + SweepRequest.MAX_BATCH));
		}
		if (maxBatchesPerTick < 1 || maxBatchesPerTick > 1000) {
			problems.add(new Problem(PREFIX + "max-batches-per-tick", "(" + maxBatchesPerTick + ") must be 1..1000"));
		}
		additionalPrograms = (additionalPrograms != null) ? List.copyOf(additionalPrograms) : List.of();
		for (String program : additionalPrograms) {
			if (parse(program) == null) {
				problems.add(new Problem(PREFIX + "additional-programs",
						"entries must be tenant/program with canonical identity components"));
				break;
			}
		}
		if (!problems.isEmpty()) {
			throw new LeaseConfigurationException(problems,
					"Set each property listed under " + PREFIX + "*; see docs/expiry-sweeper.md.");
		}
	}

	/** The additional programs as scopes. */
	public List<ProgramScope> additionalScopes() {
		return this.additionalPrograms.stream().map(LeaseSweeperProperties::parse).toList();
	}

	private static @Nullable ProgramScope parse(String text) {
		int slash = text.indexOf('/');
		if (slash <= 0 || slash != text.lastIndexOf('/')) {
			return null;
		}
		try {
			return ProgramScope.of(text.substring(0, slash), text.substring(slash + 1));
		}
		catch (InvalidLeaseRequestException ex) {
			return null;
		}
	}

}
