package io.starintel.lease.admin.it;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

import io.starintel.lease.core.LockIdentity;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Generates malformed admin requests (hundreds, from a fixed seed): field removals, wrong JSON types, bad
 * identifiers, unknown fields, truncated and garbage bodies, duplicate keys, deep nesting, oversized bodies, wrong
 * content types, bad query parameters and lease ids, unknown paths and methods.
 */
final class MalformedInputSweep {

	/** One generated request; {@code strict} when it must be exactly 400 invalid_lease_request. */
	record Case(String name, String method, String path, String body, String contentType, boolean strict) {
	}

	private static final JsonNode[] BAD_VALUES = { JsonNodeFactory.instance.numberNode(123),
			JsonNodeFactory.instance.numberNode(-1), JsonNodeFactory.instance.numberNode(1.5),
			JsonNodeFactory.instance.booleanNode(true), JsonNodeFactory.instance.arrayNode(),
			JsonNodeFactory.instance.objectNode() };

	private static final String[] BAD_STRINGS = { "", " ", "x".repeat(5000), "a\u0000b", "../etc", "a*b", "%",
			"\u202eevil", "tab\there", "new\nline", "\ud800", "{}", "star:intel", "A".repeat(129) };

	private MalformedInputSweep() {
	}

	static List<Case> cases(ObjectNode validAdminBody, String scopeQuery) {
		List<Case> cases = new ArrayList<>();
		Random random = new Random(4711);
		for (String path : List.of("/force-release", "/revoke")) {
			bodyCases(cases, path, validAdminBody, random);
		}
		ObjectNode inspect = JsonNodeFactory.instance.objectNode();
		inspect.set("lock_identity", validAdminBody.get("lock_identity").deepCopy());
		bodyCases(cases, "/inspect", inspect, random);
		queryCases(cases, scopeQuery);
		return cases;
	}

	private static void bodyCases(List<Case> cases, String path, ObjectNode valid, Random random) {
		String text = AbstractAdminEndpointTests.text(valid);
		Iterator<String> fields = valid.propertyNames().iterator();
		List<String> names = new ArrayList<>();
		fields.forEachRemaining(names::add);
		for (String field : names) {
			ObjectNode removed = valid.deepCopy();
			removed.remove(field);
			cases.add(post(path, "remove " + field, removed, !field.equals("reason") || path.equals("/force-release")));
			for (JsonNode bad : BAD_VALUES) {
				if (field.equals("fencing_token") && bad.isIntegralNumber()) {
					continue;
				}
				ObjectNode changed = valid.deepCopy();
				changed.set(field, bad);
				cases.add(post(path, field + "=" + bad, changed, true));
			}
			if (!field.equals("lock_identity")) {
				for (String bad : BAD_STRINGS) {
					ObjectNode changed = valid.deepCopy();
					changed.put(field, bad);
					boolean strict = field.equals("reason") ? (bad.isBlank() || bad.length() > 512 || hasControl(bad))
							: !bad.matches("[A-Za-z0-9._:@-]{1,128}");
					cases.add(post(path, field + "=<string " + bad.length() + ">", changed, strict));
				}
			}
		}
		if (valid.has("lock_identity")) {
			for (String component : LockIdentity.COMPONENTS) {
				for (String bad : BAD_STRINGS) {
					if (component.equals("target_id") && !bad.isBlank() && bad.length() < 200 && !hasControl(bad)
							&& !bad.contains("*") && !bad.contains("%") && !bad.contains("..")) {
						continue; // a different but valid target id is not malformed
					}
					ObjectNode changed = valid.deepCopy();
					((ObjectNode) changed.get("lock_identity")).put(component, bad);
					cases.add(post(path, component + "=<string " + bad.length() + ">", changed,
							!(component.equals("operation_class") && bad.isEmpty())));
				}
				ObjectNode typed = valid.deepCopy();
				((ObjectNode) typed.get("lock_identity")).put(component, 7);
				cases.add(post(path, component + "=7", typed, true));
			}
			ObjectNode unknownInner = valid.deepCopy();
			((ObjectNode) unknownInner.get("lock_identity")).put("lock_key", LockIdentity.KEY_PREFIX + "x");
			cases.add(post(path, "identity unknown field", unknownInner, true));
		}
		ObjectNode unknown = valid.deepCopy();
		unknown.put("metadata", "{}");
		cases.add(post(path, "unknown field", unknown, true));
		for (int cut = 0; cut < text.length() - 1; cut += 9) {
			cases.add(new Case(path + " truncated " + cut, "POST", path, text.substring(0, cut), "application/json",
					true));
		}
		for (int i = 0; i < 20; i++) {
			byte[] garbage = new byte[1 + random.nextInt(200)];
			random.nextBytes(garbage);
			cases.add(new Case(path + " garbage " + i, "POST", path,
					new String(garbage, StandardCharsets.ISO_8859_1), "application/json", true));
		}
		cases.add(new Case(path + " duplicate key", "POST", path,
				"{\"reason\":\"a\"," + text.substring(1).replace("\"reason\":", "\"reason\":\"b\",\"reason\":"),
				"application/json", true));
		cases.add(new Case(path + " deep nesting", "POST", path, "{\"lock_identity\":" + "[".repeat(3000),
				"application/json", true));
		cases.add(new Case(path + " oversized", "POST", path,
				text.substring(0, text.length() - 1) + ",\"pad\":\"" + "p".repeat(20_000) + "\"}", "application/json",
				true));
		cases.add(new Case(path + " trailing", "POST", path, text + " {}", "application/json", true));
		for (String nonObject : List.of("[]", "\"text\"", "1", "null", "true", "")) {
			cases.add(new Case(path + " non-object " + nonObject, "POST", path, nonObject, "application/json", true));
		}
		for (String type : new String[] { "text/plain", "application/xml", "application/x-www-form-urlencoded",
				null }) {
			cases.add(new Case(path + " content-type " + type, "POST", path, text, type, true));
		}
	}

	private static void queryCases(List<Case> cases, String scope) {
		for (String size : List.of("-1", "0", "-999999", "99999999999", "1e3", "abc", "", "%201", "1.5", "0x10",
				"2147483648", "%E2%80%AE1")) {
			cases.add(get("page_size " + size, "?" + scope + "&page_size=" + size, true));
		}
		cases.add(get("huge cursor", "?" + scope + "&cursor=" + "c".repeat(600), true));
		cases.add(get("empty cursor", "?" + scope + "&cursor=", true));
		cases.add(get("garbage cursor", "?" + scope + "&cursor=%25%00%2F", false));
		cases.add(get("forged cursor", "?" + scope + "&cursor=Zm9vYmFy", false));
		cases.add(get("unknown param", "?" + scope + "&pattern=*", true));
		cases.add(get("repeated param", "?" + scope + "&program_id=other", true));
		cases.add(get("missing program", "?tenant_id=tenant-a", true));
		cases.add(get("missing scope", "", true));
		cases.add(get("tenant glob", "?tenant_id=*&program_id=x", true));
		cases.add(get("tenant nul", "?tenant_id=a%00b&program_id=x", true));
		cases.add(get("tenant slash", "?tenant_id=a%2Fb&program_id=x", true));
		cases.add(get("owner and target", "?" + scope + "&owner_principal_id=a&target_id=b&target_namespace=c", true));
		cases.add(get("bad owner", "?" + scope + "&owner_principal_id=%20", true));
		cases.add(get("target without namespace", "?" + scope + "&target_id=b", true));
		cases.add(get("bad deadline", "?" + scope + "&deadline_at=tomorrow", true));
		cases.add(get("far deadline", "?" + scope + "&deadline_at=2999-01-01T00:00:00Z", true));
		// issue 15: extreme years are malformed input (400), never a backend failure
		cases.add(get("deadline year -292 million", "?" + scope + "&deadline_at=-292000000-01-01T00:00:00Z", true));
		cases.add(get("deadline year +292 million", "?" + scope + "&deadline_at=%2B292000000-01-01T00:00:00Z", true));
		cases.add(get("deadline before epoch millis", "?" + scope + "&deadline_at=-292275056-01-01T00:00:00Z", true));
		for (String leaseId : List.of("a%20b", "a*b", "x".repeat(300), "%E2%80%AE", "a%25b", "a;b=c")) {
			cases.add(get("lease id " + leaseId, "/" + leaseId + "?" + scope, false));
		}
		// the servlet container itself rejects an encoded slash or NUL in the path before the application runs
		for (String leaseId : List.of("a%2Fb", "a%00b")) {
			cases.add(new Case("GET container-rejected lease id " + leaseId, "GET", "/" + leaseId + "?" + scope, "",
					null, false));
		}
		cases.add(get("lease id without scope", "/lease_1", true));
		for (String method : List.of("PUT", "DELETE", "PATCH")) {
			cases.add(new Case(method + " list", method, "", "", null, true));
			cases.add(new Case(method + " revoke", method, "/revoke", "", null, true));
		}
		cases.add(get("unknown path", "/revoke/extra", true));
		cases.add(get("unknown deep path", "/a/b/c", true));
	}

	private static Case post(String path, String name, ObjectNode body, boolean strict) {
		return new Case(path + " " + name, "POST", path, AbstractAdminEndpointTests.text(body), "application/json",
				strict);
	}

	private static Case get(String name, String pathAndQuery, boolean strict) {
		return new Case("GET " + name, "GET", pathAndQuery, "", null, strict);
	}

	private static boolean hasControl(String value) {
		return value.chars().anyMatch(Character::isISOControl);
	}

}
