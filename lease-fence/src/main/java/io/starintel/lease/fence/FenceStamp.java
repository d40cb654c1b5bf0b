package io.starintel.lease.fence;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What an accepted commit records with its write (contract: "record the accepted token, lease, execution, and trace
 * with the write"): the lock-key digest (never the raw lock key), fencing token, lease id, execution id, trace id and
 * the backend time of the authorization.
 */
public record FenceStamp(String lockKeyDigest, long fencingToken, String leaseId, String executionId,
		String traceId, Instant acceptedAt) {

	/** Field name of the stamp object in documents. */
	public static final String FIELD = "starintel_fence";

	/** The stamp as an ordered JSON-ready map (token as a JSON number, time as ISO-8601 with milliseconds). */
	public Map<String, Object> toMap() {
		Map<String, Object> map = new LinkedHashMap<>();
		map.put("lock_key_digest", this.lockKeyDigest);
		map.put("fencing_token", this.fencingToken);
		map.put("lease_id", this.leaseId);
		map.put("execution_id", this.executionId);
		map.put("trace_id", this.traceId);
		map.put("accepted_at", DateTimeFormatter.ISO_INSTANT.format(this.acceptedAt.truncatedTo(ChronoUnit.MILLIS)));
		return map;
	}

}
