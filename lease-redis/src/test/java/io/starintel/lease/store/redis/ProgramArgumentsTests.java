package io.starintel.lease.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ProgramScope;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The list call's arguments as {@code lease.lua}'s header documents them. */
class ProgramArgumentsTests {

	private final ProgramArguments arguments = new ProgramArguments(
			CallSettings.of(new byte[0], FailoverRecovery.manual(), 1000));

	@Test
	void theListsScanBudgetIsFourEntriesPerRequestedItemAtLeast256AndNeverOverflows() {
		assertThat(scanBudget(10)).isEqualTo("256");
		assertThat(scanBudget(1_000)).isEqualTo("4000");
		assertThat(scanBudget(Integer.MAX_VALUE)).isEqualTo(Long.toString(4L * Integer.MAX_VALUE));
	}

	private String scanBudget(int pageSize) {
		FunctionCall call = this.arguments.list(new ListFilter.ByProgram(ProgramScope.of("tenant-a", "program-a")), "",
				pageSize, Instant.now().plusSeconds(5));
		// ARGV: deadline, base, after, page size, scan budget, ...
		assertThat(new String(call.args()[3], StandardCharsets.UTF_8)).isEqualTo(Integer.toString(pageSize));
		return new String(call.args()[4], StandardCharsets.UTF_8);
	}

}
