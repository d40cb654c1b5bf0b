package io.starintel.lease.sample;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The {@code usernamegen} actor: two scheduled workers pick the same {@code starintel-target} targets and process
 * each through the leased {@link UsernameGenProcessor}; whenever both reach one target at once, exactly one of them
 * runs it and the other is skipped. With several instances (profile {@code real}, Redis) the same holds across JVMs.
 * {@code sample.workers.enabled=false} turns the workers off (the {@code revoke} profile does).
 */
@Component
@ConditionalOnProperty(prefix = "sample.workers", name = "enabled", matchIfMissing = true)
class UsernameGenActor {

	private static final Logger logger = LoggerFactory.getLogger(UsernameGenActor.class);

	private static final List<TargetRef> TARGETS = List.of(new TargetRef("target_01HZX3", "alpha.example"),
			new TargetRef("target_01HZX4", "beta.example"), new TargetRef("target_01HZX5", "gamma.example"));

	private static final List<TargetRef> REVERSED = List.of(TARGETS.get(2), TARGETS.get(1), TARGETS.get(0));

	private final UsernameGenProcessor processor;

	UsernameGenActor(UsernameGenProcessor processor) {
		this.processor = processor;
	}

	@Scheduled(initialDelay = 1000, fixedDelay = 4000)
	void workerA() {
		scan("worker-a", TARGETS);
	}

	@Scheduled(initialDelay = 1000, fixedDelay = 4000)
	void workerB() {
		scan("worker-b", REVERSED);
	}

	private void scan(String worker, List<TargetRef> targets) {
		for (TargetRef target : targets) {
			try {
				this.processor.process(target, worker);
			}
			catch (InterruptedException ex) {
				logger.warn("[{}] interrupted on {} (lease lost or shutdown)", worker, target.id());
				return;
			}
			catch (RuntimeException ex) {
				logger.warn("[{}] target {} not processed: {}", worker, target.id(), ex.getMessage());
			}
		}
	}

}
