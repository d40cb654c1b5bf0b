package io.starintel.lease.sample;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the sample actor ({@code sample.*}): how long one job works (the "slow mode" that lets a revoke hit
 * an instance mid-job), where the {@code real} profile writes its results, and an optional one-shot revoke.
 *
 * @param workDuration Duration of one job's work; when unset, a random 200 to 800 ms. Set e.g. 20s to revoke a holder
 * mid-job.
 * @param couchdbUrl CouchDB (or pouchdb-server) base URL of the result documents (profile real).
 * @param database CouchDB database of the result documents, created if missing (profile real).
 * @param resultsQueue Queue the result messages are published to and consumed from (profile real); its dead-letter
 * queue is this name plus ".dlq".
 * @param revokeTarget Target id whose active lease the {@code revoke} profile revokes once (then the application
 * exits).
 */
@ConfigurationProperties("sample")
public record SampleProperties(@Nullable Duration workDuration,
		@DefaultValue("http://127.0.0.1:5984") String couchdbUrl, @DefaultValue("usernamegen-results") String database,
		@DefaultValue("usernamegen.results") String resultsQueue, @Nullable String revokeTarget) {

	/** The dead-letter queue of the result messages: {@link #resultsQueue()} plus {@code .dlq}. */
	public String deadLetterQueue() {
		return this.resultsQueue + ".dlq";
	}

}
