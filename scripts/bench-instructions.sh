#!/usr/bin/env bash
# Server instructions per acquire+release cycle, counted rather than timed (docs/benchmarks.md, "Server instructions
# per cycle"): for each library, a private redis-server (or valkey-server) runs under valgrind's callgrind while
# io.starintel.lease.bench.CycleCost drives 1 thread of warm-up + measured cycles on distinct targets against it; the
# server's instruction count does not depend on the machine's load or speed, so two versions of the store's functions
# compare to a fraction of a percent in one short run (wall-clock figures on a 2-core VM move by 5-10 % run to run).
#   bash scripts/bench-instructions.sh                                    # reference, bare-v3, store, redisson-fenced
#   bash scripts/bench-instructions.sh -Dbench.libraries=store,job -Dbench.cycles=2000
# Options: bench.libraries, bench.cycles (3000 measured), bench.warmupCycles (1000). Maven flags in MAVEN_ARGS.
# SERVER: the server binary (default: redis-server on the PATH); with one built with symbols (the Valkey source in
#   ../shared/valkey builds with them: make -C valkey-8.0.1 BUILD_TLS=no), the report also lists the server functions
#   with the most instructions per cycle (callgrind_annotate).
# BENCH_CLASSPATH_PREFIX: directories put ahead of the module's classpath (an earlier build of lease-redis's classes
#   for an A/B of lease.lua: cp -r lease-redis/target/classes /tmp/before before the change).
# Counts are user-space instructions of the whole server process (startup, the function library's load and the
# server's 10 Hz timer included: a few million, under 1 % of a library's total at the default cycle counts), divided
# by all cycles run (warm-up + measured); they leave out the kernel's socket work, which is about the same per round
# trip for every library. Needs valgrind (Debian: apt-get install valgrind).
# Output: lease-benchmarks/target/bench-results/instructions-<UTC time>/ (callgrind.<library>.out, report.md).
set -euo pipefail
cd "$(dirname "$0")/.."

LIBRARIES="reference,bare-v3,store,redisson-fenced"
CYCLES=3000
WARMUP=1000
for arg in "$@"; do
  case "$arg" in
    -Dbench.libraries=*) LIBRARIES="${arg#*=}" ;;
    -Dbench.cycles=*) CYCLES="${arg#*=}" ;;
    -Dbench.warmupCycles=*) WARMUP="${arg#*=}" ;;
    *) echo "unknown option $arg" >&2; exit 2 ;;
  esac
done
SERVER="${SERVER:-$(command -v redis-server || true)}"
if [ -z "$SERVER" ]; then echo "no redis-server on the PATH; set SERVER" >&2; exit 2; fi
for tool in valgrind callgrind_annotate redis-cli; do
  command -v "$tool" > /dev/null || { echo "$tool is missing (Debian: apt-get install valgrind redis-tools)" >&2; exit 2; }
done

OUT="$PWD/lease-benchmarks/target/bench-results/instructions-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"
./mvnw -q -B ${MAVEN_ARGS:-} -pl lease-benchmarks -am compile dependency:build-classpath -Dmaven.test.skip=true \
  -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=runtime
CP="lease-benchmarks/target/classes:$(cat lease-benchmarks/target/bench.classpath)"
if [ -n "${BENCH_CLASSPATH_PREFIX:-}" ]; then CP="$BENCH_CLASSPATH_PREFIX:$CP"; fi

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

{
  echo "## Server instructions per cycle ($(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ', uncommitted changes'))"
  echo
  echo "- server: $("$SERVER" --version | head -1); 1 thread, distinct targets; $WARMUP warm-up + $CYCLES measured cycles per library"
  if [ -n "${BENCH_CLASSPATH_PREFIX:-}" ]; then echo "- classpath prefix: $BENCH_CLASSPATH_PREFIX"; fi
  echo
  echo "| library | server instructions per cycle | scripts per cycle | instructions per script call |"
  echo "|---|---:|---:|---:|"
} > "$OUT/report.md"

IFS=',' read -r -a NAMES <<< "$LIBRARIES"
for library in "${NAMES[@]}"; do
  port=$(free_port)
  valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.$library.out" "$SERVER" --port "$port" \
    --bind 127.0.0.1 --save '' --appendonly no --dir "$OUT" > "$OUT/server.$library.log" 2>&1 &
  server=$!
  for _ in $(seq 1 300); do redis-cli -p "$port" ping > /dev/null 2>&1 && break; sleep 0.2; done
  java -cp "$CP" -Dbench.redis="redis://127.0.0.1:$port" -Dbench.libraries="$library" -Dbench.cycles="$CYCLES" \
    -Dbench.warmupCycles="$WARMUP" -Dbench.rounds=1 -Dbench.out="$OUT" io.starintel.lease.bench.CycleCost \
    > "$OUT/cyclecost.$library.log" 2>&1
  stats=$(redis-cli -p "$port" info commandstats)
  redis-cli -p "$port" shutdown nosave > /dev/null 2>&1 || true
  wait "$server" || true
  total=$(callgrind_annotate "$OUT/callgrind.$library.out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
  scripts=$(printf '%s\n' "$stats" | awk -F'[=,:]' '/^cmdstat_(fcall|evalsha|eval):/ { n += $3 } END { print n + 0 }')
  script_instructions=$(callgrind_annotate --inclusive=yes "$OUT/callgrind.$library.out" 2>/dev/null \
    | grep '\[' | awk '/:(fcallCommand|evalShaCommand|evalCommand) / { gsub(",", "", $1); n += $1 } END { print n + 0 }')
  cycles=$((CYCLES + WARMUP))
  per_script="–"
  if [ "$scripts" -gt 0 ] && [ "$script_instructions" -gt 0 ]; then per_script=$((script_instructions / scripts)); fi
  printf '| %s | %s | %s | %s |\n' "$library" "$((total / cycles))" \
    "$(awk -v s="$scripts" -v c="$cycles" 'BEGIN { printf "%.2f", s / c }')" "$per_script" >> "$OUT/report.md"
done

symbols=$(callgrind_annotate --inclusive=yes "$OUT/callgrind.${NAMES[0]}.out" 2>/dev/null | grep -c ':aeMain ' || true)
if [ "${symbols:-0}" -gt 0 ]; then
  for library in "${NAMES[@]}"; do
    {
      echo
      echo "### $library: server functions with the most instructions (inclusive, per cycle)"
      echo
      callgrind_annotate --inclusive=yes --threshold=100 "$OUT/callgrind.$library.out" 2>/dev/null \
        | grep '\[' | grep -E ':(fcallCommand|evalShaCommand|luaRedisGenericCommand|luaCreateArray|luaS_newlstr|str_find_aux|luaV_concat|luaC_step|str_format) ' \
        | awk -v c="$((CYCLES + WARMUP))" '{ gsub(",", "", $1); match($0, /:[A-Za-z_]+ \[/);
            printf "- %s: %d\n", substr($0, RSTART + 1, RLENGTH - 3), $1 / c }'
    } >> "$OUT/report.md"
  done
fi
cat "$OUT/report.md"
echo "results: $OUT"
