package io.starintel.lease.core.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.LockIdentity;

/**
 * Strict JSON mapping of the contract's lease record.
 *
 * <p>Contract: unknown top-level fields, a missing field, a wrong {@code record_version}, a {@code lock_key} that
 * does not derive from the stored tuple, or a stored tuple that differs from the requested identity are corrupt
 * and fail closed with {@link CorruptRecordException}. Timestamps are {@code yyyy-MM-ddTHH:mm:ss.SSSZ}; tokens
 * are JSON integers below 2^53.
 */
public final class LeaseRecordJson {

	/** Every top-level field of record version 1, in contract order. */
	public static final List<String> FIELDS = List.of("record_version", "lock_key", "tenant_id", "program_id",
			"target_namespace", "target_id", "actor_name", "workflow_name", "operation_class", "lease_id",
			"owner_principal_id", "owner_client_id", "owner_credential_id", "service_instance_id", "fencing_token",
			"acquired_at", "renewed_at", "expires_at", "ttl_ms", "maximum_lifetime_ms", "execution_id", "job_id",
			"trace_id", "request_id", "metadata", "state");

	private static final Set<String> FIELD_SET = Set.copyOf(FIELDS);

	private static final Pattern NUMBER = Pattern.compile("[0-9]{1,16}");

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private LeaseRecordJson() {
	}

	/** Writes the record as compact JSON in contract field order. */
	public static String write(LeaseRecord record) {
		ObjectNode node = JsonNodeFactory.instance.objectNode();
		toFields(record).forEach((name, value) -> {
			if (value instanceof Long number) {
				node.put(name, number);
			}
			else if (name.equals("metadata")) {
				node.set(name, MAPPER.readTree((String) value));
			}
			else {
				node.put(name, (String) value);
			}
		});
		return MAPPER.writeValueAsString(node);
	}

	/**
	 * The record as an ordered map of field name to value ({@code Long} for numbers, {@code String} otherwise,
	 * metadata as its canonical JSON text); the flat form the Redis store keeps in a hash.
	 */
	public static Map<String, Object> toFields(LeaseRecord r) {
		Map<String, Object> f = new LinkedHashMap<>();
		f.put("record_version", (long) LeaseRecord.RECORD_VERSION);
		f.put("lock_key", r.lockKey());
		List<String> components = r.identity().components();
		for (int i = 0; i < components.size(); i++) {
			f.put(LockIdentity.COMPONENTS.get(i), components.get(i));
		}
		f.put("lease_id", r.leaseId());
		f.put("owner_principal_id", r.owner().principalId());
		f.put("owner_client_id", r.owner().clientId());
		f.put("owner_credential_id", r.owner().credentialId());
		f.put("service_instance_id", r.owner().serviceInstanceId());
		f.put("fencing_token", r.fencingToken());
		f.put("acquired_at", ContractTime.format(r.acquiredAt()));
		f.put("renewed_at", ContractTime.format(r.renewedAt()));
		f.put("expires_at", ContractTime.format(r.expiresAt()));
		f.put("ttl_ms", r.ttlMs());
		f.put("maximum_lifetime_ms", r.maximumLifetimeMs());
		f.put("execution_id", r.executionId());
		f.put("job_id", r.jobId());
		f.put("trace_id", r.traceId());
		f.put("request_id", r.requestId());
		f.put("metadata", r.metadata().json());
		f.put("state", r.state().wireName());
		return f;
	}

	/**
	 * Reads a record strictly and checks that it belongs to {@code expected}.
	 * @throws CorruptRecordException if the text is not a valid version-1 record of that identity
	 */
	public static LeaseRecord read(String json, LockIdentity expected) {
		LeaseRecord record = read(json);
		if (!record.identity().equals(expected)) {
			throw new CorruptRecordException("stored identity differs from the requested identity");
		}
		return record;
	}

	/**
	 * Reads a record strictly.
	 * @throws CorruptRecordException if the text is not a valid version-1 record
	 */
	public static LeaseRecord read(String json) {
		JsonNode node;
		try {
			node = MAPPER.readTree(json);
		}
		catch (JacksonException | IllegalArgumentException ex) {
			throw new CorruptRecordException("not valid JSON");
		}
		if (node == null || !node.isObject()) {
			throw new CorruptRecordException("not a JSON object");
		}
		Map<String, String> fields = new LinkedHashMap<>();
		for (String name : node.propertyNames()) {
			JsonNode value = node.get(name);
			if (name.equals("metadata")) {
				if (!value.isObject()) {
					throw new CorruptRecordException("metadata is not an object");
				}
				fields.put(name, MAPPER.writeValueAsString(value));
			}
			else if (value.isString()) {
				fields.put(name, value.asString());
			}
			else if (value.isIntegralNumber() && value.canConvertToLong()) {
				fields.put(name, Long.toString(value.longValue()));
			}
			else {
				throw new CorruptRecordException("field " + fieldName(name) + " has the wrong type");
			}
		}
		return fromFields(fields);
	}

	/**
	 * Builds a record from the flat string form (a Redis hash), with the same strictness as {@link #read(String)}.
	 * @throws CorruptRecordException on any unknown, missing or invalid field
	 */
	public static LeaseRecord fromFields(Map<String, String> fields) {
		return fromFields(fields, null);
	}

	/**
	 * As {@link #fromFields(Map)}, and the record must belong to {@code expected}. When the stored tuple equals the
	 * expected identity's components the expected (already validated) identity is reused.
	 * @throws CorruptRecordException on any unknown, missing or invalid field, or another identity
	 */
	public static LeaseRecord fromFields(Map<String, String> fields, @Nullable LockIdentity expected) {
		for (String name : fields.keySet()) {
			if (!FIELD_SET.contains(name)) {
				throw new CorruptRecordException("unknown field");
			}
		}
		for (String name : FIELDS) {
			if (fields.get(name) == null) {
				throw new CorruptRecordException("missing field " + name);
			}
		}
		if (!Integer.toString(LeaseRecord.RECORD_VERSION).equals(fields.get("record_version"))) {
			throw new CorruptRecordException("unsupported record_version");
		}
		try {
			LockIdentity identity = identity(fields, expected);
			LeaseOwner owner = new LeaseOwner(fields.get("owner_principal_id"), fields.get("owner_client_id"),
					fields.get("owner_credential_id"), fields.get("service_instance_id"));
			return new LeaseRecord(identity, fields.get("lease_id"), owner, number(fields, "fencing_token"),
					ContractTime.parse(fields.get("acquired_at")), ContractTime.parse(fields.get("renewed_at")),
					ContractTime.parse(fields.get("expires_at")), number(fields, "ttl_ms"),
					number(fields, "maximum_lifetime_ms"), fields.get("execution_id"), fields.get("job_id"),
					fields.get("trace_id"), fields.get("request_id"), LeaseMetadata.parse(fields.get("metadata")),
					state(fields.get("state")));
		}
		catch (InvalidLeaseRequestException ex) {
			throw new CorruptRecordException("invalid " + ex.field());
		}
	}

	private static LockIdentity identity(Map<String, String> fields, @Nullable LockIdentity expected) {
		if (expected != null) {
			List<String> components = expected.components();
			for (int i = 0; i < components.size(); i++) {
				if (!components.get(i).equals(fields.get(LockIdentity.COMPONENTS.get(i)))) {
					throw new CorruptRecordException("stored identity differs from the requested identity");
				}
			}
			if (!expected.lockKey().equals(fields.get("lock_key"))) {
				throw new CorruptRecordException("lock_key does not derive from the stored tuple");
			}
			return expected;
		}
		LockIdentity identity = new LockIdentity(fields.get("tenant_id"), fields.get("program_id"),
				fields.get("target_namespace"), fields.get("target_id"), fields.get("actor_name"),
				fields.get("workflow_name"), fields.get("operation_class"));
		if (!identity.lockKey().equals(fields.get("lock_key"))) {
			throw new CorruptRecordException("lock_key does not derive from the stored tuple");
		}
		return identity;
	}

	private static long number(Map<String, String> fields, String name) {
		String text = fields.get(name);
		if (!NUMBER.matcher(text).matches()) {
			throw new CorruptRecordException("field " + name + " is not a non-negative integer");
		}
		return Long.parseLong(text);
	}

	private static LeaseState state(String text) {
		try {
			return LeaseState.fromWireName(text);
		}
		catch (IllegalArgumentException ex) {
			throw new CorruptRecordException("unknown state");
		}
	}

	private static String fieldName(String name) {
		return FIELD_SET.contains(name) ? name : "(unknown)";
	}

}
