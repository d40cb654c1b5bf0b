package io.starintel.lease.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * Joins JMH's JSON ({@code jmh-t<threads>-r<round>.json}) with the benchmark's own counters
 * ({@code counters.jsonl}) into {@code report.md}: one row per cell and library, ratios to the bare reference of the
 * same cell and round, and the targets of issue 32. With several rounds every figure is the median over the rounds,
 * and every ratio the median of the per-round ratios. Rerunnable on the files of an earlier run:
 * {@code java ... BenchReport <dir>}.
 */
public final class BenchReport {

	static final List<String> LIBRARIES = LockLibrary.ALL;

	private static final Pattern RESULT_FILE = Pattern.compile("jmh-t\\d+(?:-r(\\d+))?\\.json");

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private BenchReport() {
	}

	/** One measured cell of one library in one round. */
	record Row(int round, String library, String keys, int threads, double attemptsPerSecond, double error,
			double allocBytesPerAttempt, long attempts, long acquired, long redisCommands, double redisCpuSeconds,
			long clientCpuNanos, double p50, double p99, Map<String, Long> commandsByName, double replicaCpuSeconds) {

		double perAttempt(double total) {
			return (this.attempts > 0) ? total / this.attempts : Double.NaN;
		}

		double commandsPerCycle() {
			return perAttempt(this.redisCommands);
		}

		double redisCpuMicrosPerCycle() {
			return perAttempt(this.redisCpuSeconds * 1e6);
		}

		double replicaCpuMicrosPerCycle() {
			return perAttempt(this.replicaCpuSeconds * 1e6);
		}

		double clientCpuMicrosPerCycle() {
			return perAttempt(this.clientCpuNanos / 1e3);
		}

		double allocKiB() {
			return this.allocBytesPerAttempt / 1024;
		}

	}

	/** One cell of one library over all rounds. */
	record Cell(String library, String keys, int threads, List<Row> rounds, Map<Integer, Row> references) {

		double median(ToDoubleFunction<Row> metric) {
			return BenchReport.median(this.rounds.stream().mapToDouble(metric).toArray());
		}

		/** Median over rounds of this library's metric divided by the reference's in the same round. */
		double ratio(ToDoubleFunction<Row> metric) {
			return BenchReport.median(this.rounds.stream()
				.filter((r) -> this.references.containsKey(r.round()))
				.mapToDouble((r) -> metric.applyAsDouble(r) / metric.applyAsDouble(this.references.get(r.round())))
				.toArray());
		}

		long sum(ToDoubleFunction<Row> metric) {
			return (long) this.rounds.stream().mapToDouble(metric).sum();
		}

		String name() {
			return this.threads + (this.threads == 1 ? " thread, " : " threads, ") + this.keys;
		}

	}

	public static void main(String[] args) throws IOException {
		Path dir = Path.of((args.length > 0) ? args[0] : System.getProperty("bench.out", "target/bench"));
		String report = render(cells(read(dir)), dir);
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
					int round = Double.isNaN(num(c.get("round")).doubleValue()) ? 1 : num(c.get("round")).intValue();
					counters.put(key(round, str(c.get("library")), str(c.get("keys")), num(c.get("threads")).intValue()),
							c);
				}
			}
		}
		List<Row> rows = new ArrayList<>();
		List<Path> results;
		try (Stream<Path> files = Files.list(dir)) {
			results = files.filter((p) -> RESULT_FILE.matcher(p.getFileName().toString()).matches()).sorted().toList();
		}
		for (Path file : results) {
			Matcher name = RESULT_FILE.matcher(file.getFileName().toString());
			int round = (name.matches() && name.group(1) != null) ? Integer.parseInt(name.group(1)) : 1;
			List<Map<String, Object>> benchmarks = JSON.readValue(file.toFile(), List.class);
			for (Map<String, Object> b : benchmarks) {
				Map<String, Object> params = (Map<String, Object>) b.get("params");
				Map<String, Object> primary = (Map<String, Object>) b.get("primaryMetric");
				Map<String, Object> secondary = (Map<String, Object>) b.getOrDefault("secondaryMetrics", Map.of());
				Map<String, Object> alloc = (Map<String, Object>) secondary.get("gc.alloc.rate.norm");
				String library = str(params.get("library"));
				String keys = str(params.get("keys"));
				int threads = num(b.get("threads")).intValue();
				Map<String, Object> c = counters.getOrDefault(key(round, library, keys, threads), Map.of());
				Map<String, Object> latency = (Map<String, Object>) c.getOrDefault("latencyMicros", Map.of());
				Map<String, Long> byName = new TreeMap<>();
				((Map<String, Object>) c.getOrDefault("commandsByName", Map.of()))
					.forEach((command, n) -> byName.put(command, num(n).longValue()));
				rows.add(new Row(round, library, keys, threads, num(primary.get("score")).doubleValue(),
						num(primary.get("scoreError")).doubleValue(),
						(alloc != null) ? num(alloc.get("score")).doubleValue() : Double.NaN,
						num(c.get("attempts")).longValue(), num(c.get("acquired")).longValue(),
						num(c.get("redisCommands")).longValue(), num(c.get("redisCpuSeconds")).doubleValue(),
						num(c.get("clientCpuNanos")).longValue(), num(latency.get("p50")).doubleValue(),
						num(latency.get("p99")).doubleValue(), byName,
						c.containsKey("replicaCpuSeconds") ? num(c.get("replicaCpuSeconds")).doubleValue() : 0));
			}
		}
		return rows;
	}

	/** Groups rows by cell and library, in report order: threads, then distinct before contended, then library. */
	static List<Cell> cells(List<Row> rows) {
		Map<String, List<Row>> groups = new LinkedHashMap<>();
		rows.stream()
			.sorted((a, b) -> (a.threads() != b.threads()) ? Integer.compare(a.threads(), b.threads())
					: (!a.keys().equals(b.keys())) ? -a.keys().compareTo(b.keys())
							: (!a.library().equals(b.library()))
									? Integer.compare(LIBRARIES.indexOf(a.library()), LIBRARIES.indexOf(b.library()))
									: Integer.compare(a.round(), b.round()))
			.forEach((r) -> groups.computeIfAbsent(r.library() + "/" + r.keys() + "/" + r.threads(),
					(k) -> new ArrayList<>()).add(r));
		List<Cell> cells = new ArrayList<>();
		groups.values().forEach((group) -> {
			Row first = group.get(0);
			Map<Integer, Row> references = new LinkedHashMap<>();
			rows.stream()
				.filter((r) -> r.library().equals("reference") && r.keys().equals(first.keys())
						&& r.threads() == first.threads())
				.forEach((r) -> references.put(r.round(), r));
			cells.add(new Cell(first.library(), first.keys(), first.threads(), group, references));
		});
		return cells;
	}

	static String render(List<Cell> cells, Path dir) throws IOException {
		int rounds = cells.stream().mapToInt((c) -> c.rounds().size()).max().orElse(0);
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
			.append("fenced reference of the same cell and run; for throughput higher is better, for the rest lower.");
		if (rounds > 1) {
			md.append(" Figures are medians over ").append(rounds).append(" rounds; ratios are medians of the ")
				.append("per-round ratios; acquired/attempted are sums.");
		}
		boolean replica = cells.stream().anyMatch((c) -> c.median(Row::replicaCpuMicrosPerCycle) > 0);
		md.append("\n\n| cell | library | cycles/s | ×ref | acquired/attempted | p50 µs | p99 µs | p99 ×ref "
				+ "| Redis cmds/cycle | Redis CPU µs/cycle | ×ref " + (replica ? "| replica CPU µs/cycle " : "")
				+ "| client CPU µs/cycle | alloc KiB/cycle |\n");
		md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|").append(replica ? "---:|" : "")
			.append('\n');
		for (Cell cell : cells) {
			String error = (cell.rounds().size() == 1) ? " ± " + fmt(cell.rounds().get(0).error(), 0) : "";
			md.append("| ").append(cell.name()).append(" | ").append(cell.library()).append(" | ")
				.append(fmt(cell.median(Row::attemptsPerSecond), 0)).append(error).append(" | ")
				.append(fmt(cell.ratio(Row::attemptsPerSecond), 2)).append(" | ")
				.append(fmt(cell.sum(Row::acquired), 0)).append(" / ").append(fmt(cell.sum(Row::attempts), 0))
				.append(" | ").append(fmt(cell.median(Row::p50), 1)).append(" | ").append(fmt(cell.median(Row::p99), 1))
				.append(" | ").append(fmt(cell.ratio(Row::p99), 2)).append(" | ")
				.append(fmt(cell.median(Row::commandsPerCycle), 2)).append(" | ")
				.append(fmt(cell.median(Row::redisCpuMicrosPerCycle), 1)).append(" | ")
				.append(fmt(cell.ratio(Row::redisCpuMicrosPerCycle), 2)).append(" | ")
				.append(replica ? fmt(cell.median(Row::replicaCpuMicrosPerCycle), 1) + " | " : "")
				.append(fmt(cell.median(Row::clientCpuMicrosPerCycle), 1)).append(" | ")
				.append(fmt(cell.median(Row::allocKiB), 1)).append(" |\n");
		}
		md.append("\n### Cycles/s as a ratio to the bare reference\n\n| cell |");
		List<String> present = LIBRARIES.stream()
			.filter((l) -> !l.equals("reference") && cells.stream().anyMatch((c) -> c.library().equals(l)))
			.toList();
		present.forEach((l) -> md.append(' ').append(l).append(" |"));
		md.append("\n|---|").append("---:|".repeat(present.size())).append('\n');
		for (Cell ref : cells) {
			if (!ref.library().equals("reference")) {
				continue;
			}
			md.append("| ").append(ref.name()).append(" |");
			for (String l : present) {
				Cell cell = find(cells, l, ref);
				md.append(' ').append((cell != null) ? fmt(cell.ratio(Row::attemptsPerSecond), 2) : "–").append(" |");
			}
			md.append('\n');
		}
		md.append("\n### Redis commands per cycle, by command (first cell of each library)\n\n");
		List<String> listed = new ArrayList<>();
		for (Cell cell : cells) {
			Row row = cell.rounds().get(0);
			if (listed.contains(cell.library()) || row.attempts() == 0) {
				continue;
			}
			listed.add(cell.library());
			List<String> parts = new ArrayList<>();
			row.commandsByName().forEach((command, n) -> parts.add(command + " " + fmt(row.perAttempt(n), 2)));
			md.append("- ").append(cell.library()).append(" (").append(cell.name()).append("): ")
				.append(String.join(", ", parts)).append('\n');
		}
		md.append(targets(cells));
		return md.toString();
	}

	/** The targets of issue 32, per cell: the job path against Redisson, the store against the reference. */
	static String targets(List<Cell> cells) {
		StringBuilder md = new StringBuilder("\n### Targets of issue 32 (against the same run's reference and Redisson)\n\n");
		md.append("| cell | job ≥ 1.0× (1 t) / 1.25× (8 t) Redisson fenced | store ≥ 0.85× (1 t) / 0.75× (8 t) bare "
				+ "| Redis CPU ≤ 2.0× bare | ≤ 14 cmds/cycle | p99 ≤ 2× bare | ≤ 8 KiB/cycle "
				+ "| audited ≥ 0.97× (1 t) / 0.9× (8 t) store |\n|---|---|---|---|---|---|---|---|\n");
		for (Cell ref : cells) {
			Cell store = find(cells, "store", ref);
			if (!ref.library().equals("reference") || store == null) {
				continue;
			}
			boolean one = ref.threads() == 1;
			Cell audited = find(cells, "audited", ref);
			Cell job = find(cells, "job", ref);
			Cell redisson = find(cells, "redisson-fenced", ref);
			double tput = store.ratio(Row::attemptsPerSecond);
			double cpu = store.ratio(Row::redisCpuMicrosPerCycle);
			double p99 = store.ratio(Row::p99);
			double kib = store.median(Row::allocKiB);
			double commands = store.median(Row::commandsPerCycle);
			md.append("| ").append(ref.name()).append(" | ");
			if (job != null && redisson != null) {
				double j = job.ratio(Row::attemptsPerSecond) / redisson.ratio(Row::attemptsPerSecond);
				md.append(verdict(j >= (one ? 1.0 : 1.25), fmt(j, 2) + "×"));
			}
			else {
				md.append("–");
			}
			md.append(" | ").append(verdict(tput >= (one ? 0.85 : 0.75), fmt(tput, 2) + "×")).append(" | ")
				.append(verdict(cpu <= 2.0, fmt(cpu, 2) + "×")).append(" | ")
				.append(verdict(commands <= 14, fmt(commands, 2))).append(" | ")
				.append(verdict(p99 <= 2, fmt(p99, 2) + "×")).append(" | ")
				.append(verdict(kib <= 8, fmt(kib, 1) + " KiB")).append(" | ");
			if (audited != null) {
				double a = audited.ratio(Row::attemptsPerSecond) / tput;
				md.append(verdict(a >= (one ? 0.97 : 0.9), fmt(a, 2) + "× store"));
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

	private static @Nullable Cell find(List<Cell> cells, String library, Cell like) {
		return cells.stream()
			.filter((c) -> c.library().equals(library) && c.keys().equals(like.keys()) && c.threads() == like.threads())
			.findFirst()
			.orElse(null);
	}

	static double median(double[] values) {
		double[] finite = Arrays.stream(values).filter(Double::isFinite).sorted().toArray();
		if (finite.length == 0) {
			return Double.NaN;
		}
		int mid = finite.length / 2;
		return (finite.length % 2 == 1) ? finite[mid] : (finite[mid - 1] + finite[mid]) / 2;
	}

	private static String fmt(double value, int decimals) {
		if (!Double.isFinite(value)) {
			return "–";
		}
		return String.format(Locale.ROOT, "%,." + decimals + "f", value);
	}

	private static String key(int round, String library, String keys, int threads) {
		return round + "/" + library + "/" + keys + "/" + threads;
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
