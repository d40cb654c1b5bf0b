package io.starintel.lease.fence.couchdb;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.jspecify.annotations.Nullable;

/**
 * Implemented by document classes (POJOs) that {@link FencedCouchDbConnector} may stamp; {@code Map} and Jackson
 * {@code ObjectNode} documents need nothing. The property is serialized as {@code starintel_fence}.
 *
 * <p>Contract: the fenced-write adapter records the accepted token, lease, execution and trace with the write.
 */
public interface FenceStamped {

	/** The stamped fence object, or {@code null} before the first fenced write. */
	@JsonProperty("starintel_fence")
	@JsonInclude(JsonInclude.Include.NON_NULL)
	@Nullable Map<String, Object> getStarintelFence();

	/** Sets the fence object (called by the decorator just before each write). */
	@JsonProperty("starintel_fence")
	void setStarintelFence(@Nullable Map<String, Object> fence);

}
