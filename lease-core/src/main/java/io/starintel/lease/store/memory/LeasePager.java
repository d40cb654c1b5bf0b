package io.starintel.lease.store.memory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.internal.ListCursors;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;

/**
 * Paging of the reference model's list operation: filter, lock-key order and the opaque, tamper-evident cursor
 * (core's one cursor rule, {@link ListCursors}), one instance per store.
 */
final class LeasePager {

	private final ListCursors cursors = new ListCursors();

	/**
	 * One page of the records that match the request's filter, after its cursor; {@code currentRecords} is asked only
	 * once the cursor is known to be valid (it may expire records, as any operation does).
	 */
	LeasePage page(ListRequest request, int size, Instant now, Supplier<Collection<LeaseRecord>> currentRecords) {
		String after;
		try {
			after = (request.cursor() != null) ? this.cursors.decode(request.cursor(), request.filter()) : "";
		}
		catch (InvalidLeaseRequestException ex) {
			return LeasePage.failure(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE, null);
		}
		TreeMap<String, LeaseRecord> ordered = new TreeMap<>();
		for (LeaseRecord record : currentRecords.get()) {
			if (matches(request.filter(), record)) {
				ordered.put(record.lockKey(), record);
			}
		}
		List<LeaseRecord> page = new ArrayList<>();
		@Nullable String last = null;
		for (Map.Entry<String, LeaseRecord> entry : ordered.tailMap(after, false).entrySet()) {
			if (page.size() == size) {
				return new LeasePage(ResultCode.LEASE_LISTED, Reason.NONE, page, this.cursors.encode(last, request.filter()),
						now);
			}
			page.add(entry.getValue());
			last = entry.getKey();
		}
		return new LeasePage(ResultCode.LEASE_LISTED, Reason.NONE, page, null, now);
	}

	private static boolean matches(ListFilter filter, LeaseRecord record) {
		if (!record.identity().scope().equals(filter.scope())) {
			return false;
		}
		if (filter instanceof ListFilter.ByOwner owner) {
			return record.owner().principalId().equals(owner.ownerPrincipalId());
		}
		if (filter instanceof ListFilter.ByTarget target) {
			return record.identity().targetNamespace().equals(target.targetNamespace())
					&& record.identity().targetId().equals(target.targetId());
		}
		return true;
	}

}
