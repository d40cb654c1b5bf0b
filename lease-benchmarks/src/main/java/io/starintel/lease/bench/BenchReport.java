package io.starintel.lease.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * Joins JMH's JSON ({@code jmh-t*.json}) with the benchmark's own counters ({@code counters.jsonl}) into
 * {@code report.md}: one row per cell and library, ratios to the bare reference of the same cell, and the targets of
 * issue 12. Rerunnable on the files of an earlier run: {@code java ... BenchReport <dir>}.
 */
public final class BenchReport {

	static final List<String> LIBRARIES = List.of("reference", "store", "audited", "redisson-fenced", "shedlock",
			"spring-integration");

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private BenchReport() {
	}

	/** One measured cell of one library. */
	record Row(String library, String keys, int threads, double attemptsPerSecond, double error,
			double allocBytesPerAttempt, long attempts, long acquired, long redisCommands, double redisCpuSeconds,
			long clientCpuNanos, double p50, double p99, Map<String, Long> commandsByName) {

		double perAttempt(double total) {
			return (this.attempts > 0) ? total / this.attempts : Double.NaN;
		}

		double commandsPerCycle() {
			return perAttempt(this.redisCommands);
		}

		double redisCpuMicrosPerCycle() {
			return perAttempt(this.redisCpuSeconds * 1e6);
		}

		double clientCpuMicrosPerCycle() {
			return perAttempt(this.clientCpuNanos / 1e3);
		}

		String cell() {
			return this.threads + (this.threads == 1 ? " thread, " : " threads, ") + this.keys;
		}

	}

	public static void main(String[] args) throws IOException {
		Path dir = Path.of((args.length > 0) ? args[0] : System.getProperty("bench.out", "target/bench"));
		List<Row> rows = read(dir);
		String report = render(rows, dir);
		Files.writeString(dir.resolve("report.md"), report, StandardCharsets.UTF_8);
		System.out.println(report);
	}

	@SuppressWarnings("unchecked")
	static List<Row> read(Path dir) throws IOException {
		Map<String, Map<String, Object>> counters = new LinkedHashMap<>();
		Path countersFile = dir.resolve("counters.jsonl");
		if (Files.exists(countersFile)) {
			for (String line : Files.readAllLines(countersFile, StandardCharsets.UTF_8)) {
				if (!line.isBlank()) {
					Map<String, Object> c = JSON.readValue(line, Map.class);
					counters.put(key(str(c.get("library")), str(c.get("keys")), num(c.get("threads")).intValue()), c);
				}
			}
		}
		List<Row> rows = new ArrayList<>();
		List<Path> results;
		try (Stream<Path> files = Files.list(dir)) {
			results = files.filter((p) -> p.getFileName().toString().matches("jmh-t\\d+\\.json")).sorted().toList();
		}
		for (Path file : results) {
			List<Map<String, Object>> benchmarks = JSON.readValue(file.toFile(), List.class);
			for (Map<String, Object> b : benchmarks) {
				Map<String, Object> params = (Map<String, Object>) b.get("params");
				Map<String, Object> primary = (Map<String, Object>) b.get("primaryMetric");
				Map<String, Object> secondary = (Map<String, Object>) b.getOrDefault("secondaryMetrics", Map.of());
				Map<String, Object> alloc = (Map<String, Object>) secondary.get("gc.alloc.rate.norm");
				String library = str(params.get("library"));
				String keys = str(params.get("keys"));
				int threads = num(b.get("threads")).intValue();
				Map<String, Object> c = counters.getOrDefault(key(library, keys, threads), Map.of());
				Map<String, Object> latency = (Map<String, Object>) c.getOrDefault("latencyMicros", Map.of());
				Map<String, Long> byName = new LinkedHashMap<>();
				((Map<String, Object>) c.getOrDefault("commandsByName", Map.of()))
					.forEach((name, n) -> byName.put(name, num(n).longValue()));
				rows.add(new Row(library, keys, threads, num(primary.get("score")).doubleValue(),
						num(primary.get("scoreError")).doubleValue(),
						(alloc != null) ? num(alloc.get("score")).doubleValue() : Double.NaN,
						num(c.get("attempts")).longValue(), num(c.get("acquired")).longValue(),
						num(c.get("redisCommands")).longValue(), num(c.get("redisCpuSeconds")).doubleValue(),
						num(c.get("clientCpuNanos")).longValue(), num(latency.get("p50")).doubleValue(),
						num(latency.get("p99")).doubleValue(), byName));
			}
		}
		return rows;
	}

	static String render(List<Row> rows, Path dir) throws IOException {
		StringBuilder md = new StringBuilder();
		md.append("## Results\n\n");
		for (String name : List.of("environment.txt", "load-before.txt", "load-after.txt")) {
			Path file = dir.resolve(name);
			if (Files.exists(file)) {
				md.append("- ").append(name.replace(".txt", "").replace('-', ' ')).append(": `")
					.append(Files.readString(file, StandardCharsets.UTF_8).strip().replace("\n", "` `"))
					.append("`\n");
			}
		}
		md.append("\nOne cycle = one acquire attempt plus, when acquired, its release. Ratios (×ref) are to the bare ")
			.append("fenced reference of the same cell and run; for throughput higher is better, for the rest lower.\n\n");
		md.append("| cell | library | cycles/s | ×ref | acquired/attempted | p50 µs | p99 µs | p99 ×ref | Redis cmds/cycle "
				+ "| Redis CPU µs/cycle | ×ref | client CPU µs/cycle | alloc KiB/cycle |\n");
		md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		for (Row row : sorted(rows)) {
			Row ref = reference(rows, row);
			md.append("| ").append(row.cell()).append(" | ").append(row.library()).append(" | ")
				.append(fmt(row.attemptsPerSecond(), 0)).append(" ± ").append(fmt(row.error(), 0)).append(" | ")
				.append(ratio(row.attemptsPerSecond(), ref, Row::attemptsPerSecond)).append(" | ")
				.append(fmt(row.acquired(), 0)).append(" / ").append(fmt(row.attempts(), 0)).append(" | ")
				.append(fmt(row.p50(), 1)).append(" | ").append(fmt(row.p99(), 1)).append(" | ")
				.append(ratio(row.p99(), ref, Row::p99)).append(" | ")
				.append(fmt(row.commandsPerCycle(), 2)).append(" | ").append(fmt(row.redisCpuMicrosPerCycle(), 1))
				.append(" | ").append(ratio(row.redisCpuMicrosPerCycle(), ref, Row::redisCpuMicrosPerCycle))
				.append(" | ").append(fmt(row.clientCpuMicrosPerCycle(), 1)).append(" | ")
				.append(fmt(row.allocBytesPerAttempt() / 1024, 1)).append(" |\n");
		}
		md.append("\n### Cycles/s as a ratio to the bare reference\n\n| cell |");
		List<String> present = LIBRARIES.stream()
			.filter((l) -> !l.equals("reference") && rows.stream().anyMatch((r) -> r.library().equals(l)))
			.toList();
		present.forEach((l) -> md.append(' ').append(l).append(" |"));
		md.append("\n|---|").append("---:|".repeat(present.size())).append('\n');
		for (Row ref : sorted(rows)) {
			if (!ref.library().equals("reference")) {
				continue;
			}
			md.append("| ").append(ref.cell()).append(" |");
			for (String l : present) {
				Row row = find(rows, l, ref.keys(), ref.threads());
				md.append(' ').append((row != null) ? ratio(row.attemptsPerSecond(), ref, Row::attemptsPerSecond) : "–")
					.append(" |");
			}
			md.append('\n');
		}
		md.append("\n### Redis commands per cycle, by command (measurement iterations)\n\n");
		for (Row row : sorted(rows)) {
			if (row.threads() == 1 && row.keys().equals("distinct") && row.attempts() > 0) {
				md.append("- ").append(row.library()).append(": ");
				List<String> parts = new ArrayList<>();
				row.commandsByName().forEach((name, n) -> parts.add(name + " " + fmt(row.perAttempt(n), 2)));
				md.append(String.join(", ", parts)).append('\n');
			}
		}
		md.append(targets(rows));
		return md.toString();
	}

	/** The targets of issue 12, per cell, for the store (and the audited path against the store). */
	static String targets(List<Row> rows) {
		StringBuilder md = new StringBuilder("\n### Targets of issue 12 (store against the reference, same run)\n\n");
		md.append("| cell | cycles/s ≥ ").append("0.65× (8 t) / 0.8× (1 t) | Redis CPU ≤ 2.5× | p99 ≤ 2× | ≤ 8 KiB/cycle "
				+ "| audited within 10 % of store |\n|---|---|---|---|---|---|\n");
		for (Row ref : sorted(rows)) {
			Row store = find(rows, "store", ref.keys(), ref.threads());
			if (!ref.library().equals("reference") || store == null) {
				continue;
			}
			Row audited = find(rows, "audited", ref.keys(), ref.threads());
			double need = (ref.threads() >= 8) ? 0.65 : 0.8;
			double tput = store.attemptsPerSecond() / ref.attemptsPerSecond();
			double cpu = store.redisCpuMicrosPerCycle() / ref.redisCpuMicrosPerCycle();
			double p99 = store.p99() / ref.p99();
			double kib = store.allocBytesPerAttempt() / 1024;
			md.append("| ").append(ref.cell()).append(" | ").append(verdict(tput >= need, fmt(tput, 2) + "×"))
				.append(" | ").append(verdict(cpu <= 2.5, fmt(cpu, 2) + "×")).append(" | ")
				.append(verdict(p99 <= 2, fmt(p99, 2) + "×")).append(" | ")
				.append(verdict(kib <= 8, fmt(kib, 1) + " KiB")).append(" | ");
			if (audited != null) {
				double a = audited.attemptsPerSecond() / store.attemptsPerSecond();
				md.append(verdict(a >= 0.9, fmt(a, 2) + "× store"));
			}
			else {
				md.append("–");
			}
			md.append(" |\n");
		}
		return md.toString();
	}

	private static String verdict(boolean met, String value) {
		return (met ? "met " : "**not met** ") + "(" + value + ")";
	}

	private static List<Row> sorted(List<Row> rows) {
		return rows.stream()
			.sorted((a, b) -> (a.threads() != b.threads()) ? Integer.compare(a.threads(), b.threads())
					: (!a.keys().equals(b.keys())) ? -a.keys().compareTo(b.keys())
							: Integer.compare(LIBRARIES.indexOf(a.library()), LIBRARIES.indexOf(b.library())))
			.toList();
	}

	private static @Nullable Row reference(List<Row> rows, Row row) {
		return find(rows, "reference", row.keys(), row.threads());
	}

	private static @Nullable Row find(List<Row> rows, String library, String keys, int threads) {
		return rows.stream()
			.filter((r) -> r.library().equals(library) && r.keys().equals(keys) && r.threads() == threads)
			.findFirst()
			.orElse(null);
	}

	private static String ratio(double value, @Nullable Row ref, java.util.function.ToDoubleFunction<Row> metric) {
		if (ref == null) {
			return "–";
		}
		double base = metric.applyAsDouble(ref);
		return (base > 0 && Double.isFinite(value)) ? fmt(value / base, 2) : "–";
	}

	private static String fmt(double value, int decimals) {
		if (!Double.isFinite(value)) {
			return "–";
		}
		return String.format(Locale.ROOT, "%,." + decimals + "f", value);
	}

	private static String key(String library, String keys, int threads) {
		return library + "/" + keys + "/" + threads;
	}

	private static String str(@Nullable Object value) {
		return String.valueOf(value);
	}

	private static Number num(@Nullable Object value) {
		if (value instanceof Number n) {
			return n;
		}
		if (value instanceof String s) {
			try {
				return Double.parseDouble(s);
			}
			catch (NumberFormatException ex) {
				return Double.NaN;
			}
		}
		return Double.NaN;
	}

}
