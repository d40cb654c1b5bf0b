package io.starintel.lease.sample;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the sample actor ({@code sample.*}): how long one job works (the "slow mode" that lets a revoke hit
 * an instance mid-job), where the {@code real} profile writes its results, and an optional one-shot revoke.
 */
@ConfigurationProperties("sample")
public class SampleProperties {

	/**
	 * Duration of one job's work; when unset, a random 200 to 800 ms. Set e.g. 20s to revoke a holder mid-job.
	 */
	private @Nullable Duration workDuration;

	/**
	 * CouchDB (or pouchdb-server) base URL of the result documents (profile real).
	 */
	private String couchdbUrl = "http://127.0.0.1:5984";

	/**
	 * CouchDB database of the result documents, created if missing (profile real).
	 */
	private String database = "usernamegen-results";

	/**
	 * Queue the result messages are published to and consumed from (profile real); its dead-letter queue is this
	 * name plus ".dlq".
	 */
	private String resultsQueue = "usernamegen.results";

	/**
	 * Target id whose active lease the {@code revoke} profile revokes once (then the application exits).
	 */
	private @Nullable String revokeTarget;

	public @Nullable Duration getWorkDuration() {
		return this.workDuration;
	}

	public void setWorkDuration(@Nullable Duration workDuration) {
		this.workDuration = workDuration;
	}

	public String getCouchdbUrl() {
		return this.couchdbUrl;
	}

	public void setCouchdbUrl(String couchdbUrl) {
		this.couchdbUrl = couchdbUrl;
	}

	public String getDatabase() {
		return this.database;
	}

	public void setDatabase(String database) {
		this.database = database;
	}

	public String getResultsQueue() {
		return this.resultsQueue;
	}

	public void setResultsQueue(String resultsQueue) {
		this.resultsQueue = resultsQueue;
	}

	public String getDeadLetterQueue() {
		return this.resultsQueue + ".dlq";
	}

	public @Nullable String getRevokeTarget() {
		return this.revokeTarget;
	}

	public void setRevokeTarget(@Nullable String revokeTarget) {
		this.revokeTarget = revokeTarget;
	}

}
