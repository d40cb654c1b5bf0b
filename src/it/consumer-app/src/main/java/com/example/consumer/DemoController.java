package com.example.consumer;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The driver's control API: start the job on a target, let it finish, read what happened. */
@RestController
public class DemoController {

	private final ScanJob job;

	private final JobState state;

	private final ExecutorService executor = Executors.newSingleThreadExecutor();

	DemoController(ScanJob job, JobState state) {
		this.job = job;
		this.state = state;
	}

	@PostMapping("/demo/run")
	Map<String, Object> run(@RequestParam("target") String target) {
		this.state.reset();
		this.state.put("requested_at", Instant.now());
		this.executor.submit(() -> {
			try {
				String result = this.job.scan(target);
				this.state.put("result", (result != null) ? result : "skipped");
			}
			catch (RuntimeException ex) {
				this.state.put("result", "failed:" + ex.getClass().getSimpleName());
			}
			this.state.put("call_returned_at", Instant.now());
		});
		return this.state.snapshot();
	}

	@PostMapping("/demo/finish")
	Map<String, Object> finish() {
		this.state.finish();
		return this.state.snapshot();
	}

	@GetMapping("/demo/state")
	Map<String, Object> state() {
		return this.state.snapshot();
	}

}
