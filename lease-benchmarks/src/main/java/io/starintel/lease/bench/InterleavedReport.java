package io.starintel.lease.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.zip.DataFormatException;

import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * The report of interleaved runs ({@link InterleavedRun}), rendered from their {@code interleaved.jsonl} (one line per
 * measured slice, latencies included as a compressed histogram), so that it can be rendered again and combined:
 * {@code java ... InterleavedReport <run dir>} writes {@code interleaved.md} of one run again;
 * {@code java ... InterleavedReport --summary <out dir> <run dir>...} writes {@code summary.md} over several runs
 * (each figure per run, then the median of the runs), which {@code scripts/bench.sh --interleaved --runs N} does.
 */
public final class InterleavedReport {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private InterleavedReport() {
	}

	/**
	 * One measured slice of one library, also a line of {@code interleaved.jsonl}.
	 * @param round the round (1 = the first measured one)
	 * @param library the library
	 * @param keys {@code distinct} or {@code contended}
	 * @param threads the threads of the cell
	 * @param attempts cycles attempted in the slice (acquire + release, or a refused acquire)
	 * @param acquired cycles that acquired
	 * @param nanos the slice's elapsed time (audit drain included for the audited paths)
	 * @param redisCpuSeconds the library's Redis server CPU ({@code INFO cpu} user + sys) over the slice
	 * @param replicaCpuSeconds the same of its replica, or 0 without one
	 * @param commands Redis commands over the slice ({@code INFO commandstats}; {@code info} and the replica's
	 * {@code replconf} left out)
	 * @param commandsByName the same by command
	 * @param clientCpuNanos this JVM's process CPU over the slice
	 * @param allocatedBytes bytes allocated by every thread of this JVM over the slice
	 * @param latency every attempt's latency (ns), an HdrHistogram, compressed and base64-encoded
	 */
	record Slice(int round, String library, String keys, int threads, long attempts, long acquired, long nanos,
			double redisCpuSeconds, double replicaCpuSeconds, long commands, Map<String, Long> commandsByName,
			long clientCpuNanos, long allocatedBytes, String latency) {

		double cyclesPerSecond() {
			return this.attempts * 1e9 / this.nanos;
		}

		/**
		 * The slice's latencies. Decoded into a histogram that covers an hour at least: an auto-resizing histogram (a
		 * {@code Recorder}'s) can encode counts beyond the range its header names, which a histogram sized by the
		 * header alone cannot take (an {@code ArrayIndexOutOfBoundsException} ended an 8-thread run once).
		 */
		Histogram histogram() {
			try {
				return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(this.latency)),
						DECODED_RANGE_NANOS);
			}
			catch (DataFormatException ex) {
				throw new IllegalStateException("corrupt latency histogram", ex);
			}
		}

		/** The least range a decoded latency histogram covers (ns): one hour. */
		private static final long DECODED_RANGE_NANOS = java.util.concurrent.TimeUnit.HOURS.toNanos(1);

		static String encode(Histogram histogram) {
			ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
			int length = histogram.encodeIntoCompressedByteBuffer(buffer);
			return Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
		}

	}

	/** One library in one cell of one run: its slices and the figures of the report. */
	record Figures(String library, List<Slice> slices, Histogram latencies) {

		static Figures of(String library, List<Slice> slices) {
			Histogram all = new Histogram(3);
			slices.forEach((s) -> all.add(s.histogram()));
			return new Figures(library, slices, all);
		}

		double attempts() {
			return this.slices.stream().mapToLong(Slice::attempts).sum();
		}

		long acquired() {
			return this.slices.stream().mapToLong(Slice::acquired).sum();
		}

		double perCycle(ToDoubleFunction<Slice> metric) {
			return this.slices.stream().mapToDouble(metric).sum() / attempts();
		}

		double cyclesPerSecond() {
			return median(this.slices.stream().mapToDouble(Slice::cyclesPerSecond).toArray());
		}

		double commandsPerCycle() {
			return perCycle(Slice::commands);
		}

		double redisCpuMicros() {
			return perCycle(Slice::redisCpuSeconds) * 1e6;
		}

		double replicaCpuMicros() {
			return perCycle(Slice::replicaCpuSeconds) * 1e6;
		}

		double clientCpuMicros() {
			return perCycle(Slice::clientCpuNanos) / 1e3;
		}

		double allocKiB() {
			return perCycle(Slice::allocatedBytes) / 1024;
		}

		double p50() {
			return this.latencies.getValueAtPercentile(50) / 1e3;
		}

		double p99() {
			return this.latencies.getValueAtPercentile(99) / 1e3;
		}

		/** Server-bound throughput: the cycles/s one Redis core could serve at this Redis CPU per cycle. */
		double serverBound() {
			return 1e6 / redisCpuMicros();
		}

		/** Per command, calls per cycle. */
		Map<String, Double> commandsByName() {
			Map<String, Long> sums = new TreeMap<>();
			this.slices.forEach((s) -> s.commandsByName().forEach((c, n) -> sums.merge(c, n, Long::sum)));
			Map<String, Double> out = new LinkedHashMap<>();
			sums.forEach((c, n) -> out.put(c, n / attempts()));
			return out;
		}

		/** Per round: this library's cycles/s ÷ the base's in the same round (empty without a base). */
		double[] ratios(@Nullable Figures base) {
			if (base == null) {
				return new double[0];
			}
			Map<Integer, Slice> byRound = new TreeMap<>();
			base.slices.forEach((s) -> byRound.put(s.round(), s));
			return this.slices.stream()
				.filter((s) -> byRound.containsKey(s.round()))
				.mapToDouble((s) -> s.cyclesPerSecond() / byRound.get(s.round()).cyclesPerSecond())
				.toArray();
		}

		double ratio(@Nullable Figures base) {
			return median(ratios(base));
		}

	}

	/** One cell (threads × keys) of one run: each library's figures, in report order. */
	record Cell(int threads, String keys, Map<String, Figures> libraries) {

		String name() {
			return this.threads + (this.threads == 1 ? " thread, " : " threads, ") + this.keys;
		}

		@Nullable Figures get(String library) {
			return this.libraries.get(library);
		}

		double ratio(String library, String base) {
			Figures figures = get(library);
			return (figures != null) ? figures.ratio(get(base)) : Double.NaN;
		}

	}

	public static void main(String[] args) throws IOException {
		if (args.length >= 2 && args[0].equals("--summary")) {
			Path out = Path.of(args[1]);
			List<Path> runs = Arrays.stream(args).skip(2).map(Path::of).toList();
			String summary = summary(runs);
			Files.writeString(out.resolve("summary.md"), summary, StandardCharsets.UTF_8);
			System.out.println(summary);
			return;
		}
		Path dir = Path.of((args.length > 0) ? args[0] : System.getProperty("bench.out", "target/bench"));
		String report = render(cells(read(dir)), environment(dir));
		Files.writeString(dir.resolve("interleaved.md"), report, StandardCharsets.UTF_8);
		System.out.println(report);
	}

	static List<Slice> read(Path dir) throws IOException {
		List<Slice> slices = new ArrayList<>();
		for (String line : Files.readAllLines(dir.resolve("interleaved.jsonl"), StandardCharsets.UTF_8)) {
			if (!line.isBlank()) {
				slices.add(JSON.readValue(line, Slice.class));
			}
		}
		return slices;
	}

	static List<String> environment(Path dir) throws IOException {
		Path file = dir.resolve("interleaved-environment.txt");
		return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
	}

	/** The cells of a run's slices: by threads, then keys in the order met; libraries in {@link LockLibrary#ALL} order. */
	static List<Cell> cells(List<Slice> slices) {
		Map<String, Map<String, List<Slice>>> grouped = new LinkedHashMap<>();
		slices.stream()
			.sorted((a, b) -> Integer.compare(a.threads(), b.threads()))
			.forEach((s) -> grouped.computeIfAbsent(s.threads() + "/" + s.keys(), (k) -> new LinkedHashMap<>())
				.computeIfAbsent(s.library(), (k) -> new ArrayList<>())
				.add(s));
		List<Cell> cells = new ArrayList<>();
		grouped.forEach((name, byLibrary) -> {
			Slice first = byLibrary.values().iterator().next().get(0);
			Map<String, Figures> libraries = new LinkedHashMap<>();
			order(byLibrary.keySet()).forEach((library) -> libraries.put(library, Figures.of(library, byLibrary.get(library))));
			cells.add(new Cell(first.threads(), first.keys(), libraries));
		});
		return cells;
	}

	private static List<String> order(java.util.Collection<String> libraries) {
		List<String> ordered = new ArrayList<>(LockLibrary.ALL.stream().filter(libraries::contains).toList());
		libraries.stream().filter((l) -> !ordered.contains(l)).forEach(ordered::add);
		return ordered;
	}

	static String render(List<Cell> cells, List<String> environment) {
		StringBuilder md = new StringBuilder("## Interleaved paired ratios\n\n");
		environment.forEach((line) -> md.append("- ").append(line).append('\n'));
		boolean replica = cells.stream()
			.flatMap((c) -> c.libraries().values().stream())
			.anyMatch((f) -> f.replicaCpuMicros() > 0);
		md.append("\nOne cycle = one acquire attempt plus, when acquired, its release. ×ref: the median over rounds of ")
			.append("the library's cycles/s divided by the reference's in the same round (min–max in brackets). ")
			.append("cycles/s: median over the slices; p50/p99: all measured attempts; per-cycle figures: sums over the ")
			.append("measured slices ÷ attempts. Client CPU is this JVM's process CPU and allocation all its threads' ")
			.append("during the library's slices. Server-bound: 10⁶ ÷ Redis CPU µs per cycle, the cycles/s one Redis ")
			.append("core could serve.\n");
		for (Cell cell : cells) {
			Figures reference = cell.get("reference");
			md.append("\n### ").append(cell.name()).append("\n\n| library | cycles/s | ×ref | acquired/attempted ")
				.append("| p50 µs | p99 µs | p99 ×ref | Redis cmds/cycle | Redis CPU µs/cycle | ×ref ")
				.append(replica ? "| replica CPU µs/cycle " : "")
				.append("| client CPU µs/cycle | alloc KiB/cycle | server-bound cycles/s |\n")
				.append("|---|").append("---:|".repeat(replica ? 13 : 12)).append('\n');
			for (Figures f : cell.libraries().values()) {
				md.append("| ").append(f.library()).append(" | ").append(fmt(f.cyclesPerSecond(), 0)).append(" | ")
					.append(spread(f.ratios(reference))).append(" | ").append(fmt(f.acquired(), 0)).append(" / ")
					.append(fmt(f.attempts(), 0)).append(" | ").append(fmt(f.p50(), 1)).append(" | ")
					.append(fmt(f.p99(), 1)).append(" | ")
					.append(fmt((reference != null) ? f.p99() / reference.p99() : Double.NaN, 2)).append(" | ")
					.append(fmt(f.commandsPerCycle(), 2)).append(" | ").append(fmt(f.redisCpuMicros(), 1)).append(" | ")
					.append(fmt((reference != null) ? f.redisCpuMicros() / reference.redisCpuMicros() : Double.NaN, 2))
					.append(" | ");
				if (replica) {
					md.append(fmt(f.replicaCpuMicros(), 1)).append(" | ");
				}
				md.append(fmt(f.clientCpuMicros(), 1)).append(" | ").append(fmt(f.allocKiB(), 1)).append(" | ")
					.append(fmt(f.serverBound(), 0)).append(" |\n");
			}
			md.append('\n');
			for (String[] pair : PAIRS) {
				Figures a = cell.get(pair[0]);
				Figures b = cell.get(pair[1]);
				if (a != null && b != null) {
					md.append("- ").append(pair[0]).append(" ÷ ").append(pair[1]).append(", per round: ")
						.append(spread(a.ratios(b))).append('\n');
				}
			}
			md.append("\nRedis commands per cycle, by command (`replconf`: the replica's acknowledgements, not counted ")
				.append("in cmds/cycle):\n\n");
			for (Figures f : cell.libraries().values()) {
				List<String> parts = new ArrayList<>();
				f.commandsByName().forEach((c, n) -> parts.add(c + " " + fmt(n, 2)));
				md.append("- ").append(f.library()).append(": ").append(String.join(", ", parts)).append('\n');
			}
		}
		md.append(summaryTables(List.of(cells)));
		return md.toString();
	}

	/** The per-round ratios the cell tables list below the table (when both libraries ran). */
	private static final String[][] PAIRS = { { "audited", "store" }, { "job", "store" }, { "job", "redisson-fenced" },
			{ "store", "bare-v3" }, { "store", "redisson-fenced" }, { "reference-wait", "reference" },
			{ "bare-v3-wait", "bare-v3" }, { "store", "store-nowait" }, { "audited-stream", "store" }, { "job-stream", "store" },
			{ "job-stream", "redisson-fenced" } };

	/**
	 * The run-level tables, for one run or several (each figure per run, then their median): ratios to the
	 * reference, server-bound throughput against Redisson, the cost of the replica wait, the targets of issue 32.
	 */
	static String summaryTables(List<List<Cell>> runs) {
		StringBuilder md = new StringBuilder();
		List<Cell> first = runs.get(0);
		List<String> libraries = order(first.stream().flatMap((c) -> c.libraries().keySet().stream()).distinct().toList());
		boolean several = runs.size() > 1;
		String how = several ? " (run 1 / run 2 / … → median of the runs)" : "";
		List<String> columns = libraries.stream().filter((l) -> !l.equals("reference")).toList();
		md.append("\n### Median per-round ratio of cycles/s to the reference").append(how).append("\n\n| cell |");
		columns.forEach((l) -> md.append(' ').append(l).append(" |"));
		md.append("\n|---|").append("---:|".repeat(columns.size())).append('\n');
		for (int c = 0; c < first.size(); c++) {
			md.append("| ").append(first.get(c).name()).append(" |");
			for (String library : columns) {
				md.append(' ').append(across(runs, c, (cell) -> cell.ratio(library, "reference"), 2)).append(" |");
			}
			md.append('\n');
		}
		if (libraries.contains("redisson-fenced")) {
			md.append("\n### Server-bound throughput: Redis CPU per cycle → cycles/s on one Redis core, × Redisson ")
				.append("`RFencedLock`").append(how).append("\n\n| cell |");
			List<String> bound = libraries.stream().filter((l) -> !l.equals("redisson-fenced")).toList();
			bound.forEach((l) -> md.append(' ').append(l).append(" |"));
			md.append(" redisson-fenced cycles/s |\n|---|")
				.append("---:|".repeat(bound.size() + 1)).append('\n');
			for (int c = 0; c < first.size(); c++) {
				md.append("| ").append(first.get(c).name()).append(" |");
				for (String library : bound) {
					md.append(' ').append(across(runs, c, (cell) -> serverBoundRatio(cell, library), 2)).append(" |");
				}
				md.append(' ').append(across(runs, c, (cell) -> {
					Figures r = cell.get("redisson-fenced");
					return (r != null) ? r.serverBound() : Double.NaN;
				}, 0)).append(" |\n");
			}
		}
		List<String[]> waits = new ArrayList<>();
		for (String[] pair : new String[][] { { "reference-wait", "reference" }, { "bare-v3-wait", "bare-v3" },
				{ "store", "store-nowait" } }) {
			if (libraries.contains(pair[0]) && libraries.contains(pair[1])) {
				waits.add(pair);
			}
		}
		if (!waits.isEmpty()) {
			md.append("\n### The cost of the replica wait (with a replica: cycles/s with the wait ÷ without it, per ")
				.append("round; and the Redis CPU and p99 with ÷ without)").append(how).append("\n\n| cell |");
			waits.forEach((w) -> md.append(' ').append(w[0]).append(" ÷ ").append(w[1]).append(": cycles/s | Redis CPU | p99 |"));
			md.append("\n|---|").append("---:|".repeat(3 * waits.size())).append('\n');
			for (int c = 0; c < first.size(); c++) {
				md.append("| ").append(first.get(c).name()).append(" |");
				for (String[] w : waits) {
					md.append(' ').append(across(runs, c, (cell) -> cell.ratio(w[0], w[1]), 2)).append(" | ")
						.append(across(runs, c, (cell) -> metricRatio(cell, w[0], w[1], Figures::redisCpuMicros), 2))
						.append(" | ").append(across(runs, c, (cell) -> metricRatio(cell, w[0], w[1], Figures::p99), 2))
						.append(" |");
				}
				md.append('\n');
			}
			md.append("\nRedisson (`redisson-fenced`, `redisson-lock`) runs with its replica check on in this mode ")
				.append("(master/replica configuration, `checkLockSyncedSlaves`); its cost is the ratio to the same ")
				.append("library in a run without `--replica`.\n");
		}
		md.append(targets(runs));
		return md.toString();
	}

	private static double serverBoundRatio(Cell cell, String library) {
		Figures f = cell.get(library);
		Figures r = cell.get("redisson-fenced");
		return (f != null && r != null) ? f.serverBound() / r.serverBound() : Double.NaN;
	}

	private static double metricRatio(Cell cell, String a, String b, ToDoubleFunction<Figures> metric) {
		Figures fa = cell.get(a);
		Figures fb = cell.get(b);
		return (fa != null && fb != null) ? metric.applyAsDouble(fa) / metric.applyAsDouble(fb) : Double.NaN;
	}

	/** The targets of issue 32, per cell (the store and the job path against the same run's references). */
	static String targets(List<List<Cell>> runs) {
		List<Cell> first = runs.get(0);
		if (first.stream().noneMatch((c) -> c.get("store") != null && c.get("reference") != null)) {
			return "";
		}
		String how = (runs.size() > 1) ? " (median of the runs)" : "";
		StringBuilder md = new StringBuilder("\n### Targets of issue 32").append(how).append("\n\n")
			.append("| cell | job ≥ 1.0× (1 t) / 1.25× (8 t) Redisson fenced | store ≥ 0.85× (1 t) / 0.75× (8 t) bare ")
			.append("| Redis CPU ≤ 2.0× bare | ≤ 14 cmds/cycle | p99 ≤ 2× bare | ≤ 8 KiB/cycle ")
			.append("| audited ≥ 0.97× (1 t) / 0.9× (8 t) store |\n|---|---|---|---|---|---|---|---|\n");
		for (int c = 0; c < first.size(); c++) {
			Cell cell = first.get(c);
			boolean one = cell.threads() == 1;
			int index = c;
			Function<Function<Cell, Double>, Double> median = (metric) -> median(
					runs.stream().mapToDouble((run) -> metric.apply(run.get(index))).toArray());
			double job = median.apply((x) -> x.ratio("job", "redisson-fenced"));
			double store = median.apply((x) -> x.ratio("store", "reference"));
			double cpu = median.apply((x) -> metricRatio(x, "store", "reference", Figures::redisCpuMicros));
			double commands = median.apply((x) -> metricOf(x, "store", Figures::commandsPerCycle));
			double p99 = median.apply((x) -> metricRatio(x, "store", "reference", Figures::p99));
			double alloc = median.apply((x) -> metricOf(x, "store", Figures::allocKiB));
			double audited = median.apply((x) -> x.ratio("audited", "store"));
			md.append("| ").append(cell.name()).append(" | ").append(verdict(job, one ? 1.0 : 1.25, true, "×"))
				.append(" | ").append(verdict(store, one ? 0.85 : 0.75, true, "×")).append(" | ")
				.append(verdict(cpu, 2.0, false, "×")).append(" | ").append(verdict(commands, 14, false, ""))
				.append(" | ").append(verdict(p99, 2.0, false, "×")).append(" | ")
				.append(verdict(alloc, 8, false, " KiB")).append(" | ")
				.append(verdict(audited, one ? 0.97 : 0.9, true, "× store")).append(" |\n");
		}
		md.append("\nThe store's allocation per cycle here is the JVM's during the store's slices (all threads); the ")
			.append("JMH run (`bash scripts/bench.sh`) measures it per operation with its GC profiler.");
		if (first.stream().anyMatch((c) -> c.get("reference-wait") != null)) {
			md.append(" With a replica, the store waits for it and the reference does not: issue 32's targets are for ")
				.append("a run without a replica; the wait's cost is the table above.");
		}
		md.append('\n');
		return md.toString();
	}

	private static double metricOf(Cell cell, String library, ToDoubleFunction<Figures> metric) {
		Figures f = cell.get(library);
		return (f != null) ? metric.applyAsDouble(f) : Double.NaN;
	}

	private static String verdict(double value, double limit, boolean atLeast, String unit) {
		if (!Double.isFinite(value)) {
			return "–";
		}
		boolean met = atLeast ? value >= limit : value <= limit;
		// a figure that misses its limit by less than the last printed digit gets one digit more (14.003, not 14.00)
		int decimals = (!met && fmt(value, 2).equals(fmt(limit, 2))) ? 3 : 2;
		return (met ? "met (" : "**not met** (") + fmt(value, decimals) + unit + ")";
	}

	/** One figure of cell {@code c} in every run: {@code v} for one run, {@code v1 / v2 / … → median} for several. */
	private static String across(List<List<Cell>> runs, int c, Function<Cell, Double> metric, int decimals) {
		double[] values = runs.stream()
			.mapToDouble((run) -> (c < run.size()) ? metric.apply(run.get(c)) : Double.NaN)
			.toArray();
		if (values.length == 1) {
			return fmt(values[0], decimals);
		}
		StringBuilder text = new StringBuilder();
		for (double v : values) {
			text.append((text.length() == 0) ? "" : " / ").append(fmt(v, decimals));
		}
		return text.append(" → **").append(fmt(median(values), decimals)).append("**").toString();
	}

	/** The summary of several runs of the same cells: their tables side by side, then each run's report by link. */
	static String summary(List<Path> runs) throws IOException {
		List<List<Cell>> cells = new ArrayList<>();
		StringBuilder md = new StringBuilder("## Interleaved runs: summary of ").append(runs.size())
			.append(" runs\n\n");
		for (Path run : runs) {
			cells.add(cells(read(run)));
			md.append("- ").append(run.getFileName()).append(": ")
				.append(String.join("; ", environment(run))).append('\n');
		}
		md.append("\nEach run is a whole interleaved run (its own JVM and freshly started servers); its figure per ")
			.append("cell is the median over its rounds (each run's `interleaved.md` has the min–max and the full ")
			.append("tables). The bold figure is the median of the runs.\n");
		md.append(summaryTables(cells));
		md.append("\n### Per-cycle figures (run 1 / run 2 / … → median)\n");
		List<Cell> first = cells.get(0);
		for (int c = 0; c < first.size(); c++) {
			int index = c;
			md.append("\n#### ").append(first.get(c).name()).append("\n\n| library | ×ref | p99 ×ref | Redis cmds/cycle ")
				.append("| Redis CPU µs/cycle | client CPU µs/cycle | alloc KiB/cycle |\n|---|---:|---:|---:|---:|---:|---:|\n");
			for (String library : first.get(c).libraries().keySet()) {
				md.append("| ").append(library).append(" | ")
					.append(across(cells, index, (x) -> x.ratio(library, "reference"), 2)).append(" | ")
					.append(across(cells, index, (x) -> metricRatio(x, library, "reference", Figures::p99), 2))
					.append(" | ").append(across(cells, index, (x) -> metricOf(x, library, Figures::commandsPerCycle), 2))
					.append(" | ").append(across(cells, index, (x) -> metricOf(x, library, Figures::redisCpuMicros), 1))
					.append(" | ").append(across(cells, index, (x) -> metricOf(x, library, Figures::clientCpuMicros), 1))
					.append(" | ").append(across(cells, index, (x) -> metricOf(x, library, Figures::allocKiB), 1))
					.append(" |\n");
			}
		}
		return md.toString();
	}

	/** {@code median (min–max)} of per-round ratios. */
	private static String spread(double[] ratios) {
		if (ratios.length == 0) {
			return "–";
		}
		return fmt(median(ratios), 2) + " (" + fmt(Arrays.stream(ratios).min().orElseThrow(), 2) + "–"
				+ fmt(Arrays.stream(ratios).max().orElseThrow(), 2) + ")";
	}

	static double median(double[] values) {
		return BenchReport.median(values);
	}

	static String fmt(double value, int decimals) {
		return Double.isFinite(value) ? String.format(Locale.ROOT, "%,." + decimals + "f", value) : "–";
	}

}
