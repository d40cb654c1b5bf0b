#!/usr/bin/env bash
# JMH benchmark of one acquire+release cycle: the lease store, the audited operations path (LeaseService), a bare
# fenced EVALSHA reference, Redisson RFencedLock, ShedLock and Spring Integration RedisLockRegistry, at 1 and 8
# threads, on distinct keys and one contended key, in one run (module lease-benchmarks; ~15 min by default).
#   bash scripts/bench.sh                                   # everything: 24 cells x (2 warm-up + 3 x 5 s), 1 fork each
#   bash scripts/bench.sh -Dbench.seconds=1 -Dbench.threads=1 -Dbench.libraries=reference,store   # a quick look
# Options are JVM -D flags: bench.threads (1,8), bench.libraries, bench.keys (distinct,contended), bench.warmup (2),
# bench.iterations (3), bench.seconds (5), bench.heap (1g). Maven flags can go in MAVEN_ARGS.
# --interleaved: instead of JMH, io.starintel.lease.bench.InterleavedRun in one JVM: per cell, all libraries take turns
# in short slices, shuffled per round, and each ratio to the reference is taken per round, then the median (the VM's
# speed drifts by up to +-40 % over minutes; ~8 min by default). Options: bench.threads, bench.keys, bench.libraries,
# bench.warmupSlices (5), bench.slices (12 rounds), bench.sliceMillis (1000), bench.seed, bench.heap (1g):
#   bash scripts/bench.sh --interleaved -Dbench.threads=1 -Dbench.libraries=reference,store,audited -Dbench.slices=5
# Each library gets its own private redis-server (its keyspace holds only its own keys, as a user's Redis would; JMH
# forks and interleaved slices alike); --shared-redis puts them all on one server instead.
# Redis: BENCH_REDIS_URL if set (shared by all); otherwise the private redis-servers started here on free loopback
# ports (so that INFO commandstats / INFO cpu count only the benchmark), stopped at the end; without redis-server on the PATH,
# STARINTEL_REDIS_URL or 127.0.0.1:6379 (then the command and CPU counters include the other clients).
# Output: lease-benchmarks/target/bench-results/<UTC time>/ (jmh-t*.json, counters.jsonl, report.md, logs/; with
# --interleaved: interleaved.md, interleaved.jsonl, logs/, and a copy of the report in
# lease-benchmarks/target/bench-results/latest-interleaved.md).
# BENCH_CLASSPATH_PREFIX: directories put ahead of the module's classpath (a patched lease.lua for an experiment:
# scripts/bench-prototypes.sh); unset for every published figure.
set -euo pipefail
cd "$(dirname "$0")/.."

INTERLEAVED=false
SHARED_REDIS=false
HEAP=1g
LIBRARIES="reference,store,audited,redisson-fenced,shedlock,spring-integration"
ARGS=()
for arg in "$@"; do
  case "$arg" in
    --interleaved) INTERLEAVED=true ;;
    --shared-redis) SHARED_REDIS=true ;;
    -Dbench.heap=*) HEAP="${arg#*=}"; ARGS+=("$arg") ;;
    -Dbench.libraries=*) LIBRARIES="${arg#*=}"; ARGS+=("$arg") ;;
    *) ARGS+=("$arg") ;;
  esac
done

OUT="$PWD/lease-benchmarks/target/bench-results/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"
REDIS_PID_FILES=()
cleanup() {
  for pid_file in ${REDIS_PID_FILES[@]+"${REDIS_PID_FILES[@]}"}; do
    if [ -s "$pid_file" ]; then kill "$(cat "$pid_file")" 2>/dev/null || true; fi
  done
}
trap cleanup EXIT

# starts a private redis-server on the next free loopback port from NEXT_PORT; sets PORT to it
NEXT_PORT=16379
start_redis() {
  local name="$1" port="$NEXT_PORT"
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  NEXT_PORT=$((port + 1))
  REDIS_PID_FILES+=("$OUT/redis-$name.pid")
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
    --pidfile "$OUT/redis-$name.pid" --logfile "$OUT/redis-$name.log" --dir "$OUT"
  for _ in $(seq 1 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  PORT="$port"
}

PER_LIBRARY=""
if [ -n "${BENCH_REDIS_URL:-}" ]; then
  REDIS_URL="$BENCH_REDIS_URL"; REDIS_MODE="given server (BENCH_REDIS_URL)"
elif command -v redis-server >/dev/null 2>&1; then
  if [ "$SHARED_REDIS" = true ]; then
    start_redis shared
    REDIS_URL="redis://127.0.0.1:$PORT"; REDIS_MODE="private redis-server on port $PORT (only the benchmark's clients)"
  else
    # one private server per library: each keyspace holds only its library's keys, as a user's Redis would (the
    # store keeps idempotency records for the policy's retention, the reference for 60 s: on one shared server the
    # store's keys slow every library's commands down); REDIS_URL is the first one's (version, fallback)
    REDIS_URL=""
    for library in ${LIBRARIES//,/ }; do
      start_redis "$library"
      PER_LIBRARY="${PER_LIBRARY:+$PER_LIBRARY,}$library=redis://127.0.0.1:$PORT"
      REDIS_URL="${REDIS_URL:-redis://127.0.0.1:$PORT}"
    done
    REDIS_MODE="one private redis-server per library (only the benchmark's clients)"
  fi
else
  REDIS_URL="${STARINTEL_REDIS_URL:-redis://127.0.0.1:6379}"
  REDIS_MODE="shared server $REDIS_URL (counters include other clients)"
  if ! redis-cli -u "$REDIS_URL" ping >/dev/null 2>&1; then bash scripts/services.sh; fi
fi

# shellcheck disable=SC2086
./mvnw -q -B ${MAVEN_ARGS:-} -pl lease-benchmarks -am compile dependency:build-classpath -Dmaven.test.skip=true \
  -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=runtime
CP="${BENCH_CLASSPATH_PREFIX:+$BENCH_CLASSPATH_PREFIX:}lease-benchmarks/target/classes:$(cat lease-benchmarks/target/bench.classpath)"

REDIS_VERSION="$(redis-cli -u "$REDIS_URL" info server 2>/dev/null | tr -d '\r' | sed -n 's/^redis_version://p')"
{
  echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "$(nproc) cores, $(java -version 2>&1 | head -1), Redis ${REDIS_VERSION:-?}: $REDIS_MODE"
} > "$OUT/environment.txt"
uptime > "$OUT/load-before.txt"
if [ "$INTERLEAVED" = true ]; then
  java "-Xms$HEAP" "-Xmx$HEAP" -cp "$CP" -Dbench.out="$OUT" -Dbench.redis="$REDIS_URL" \
    -Dbench.redisMode="$REDIS_MODE" -Dbench.redisPerLibrary="$PER_LIBRARY" ${ARGS[@]+"${ARGS[@]}"} \
    io.starintel.lease.bench.InterleavedRun
  uptime > "$OUT/load-after.txt"
  cp "$OUT/interleaved.md" "$PWD/lease-benchmarks/target/bench-results/latest-interleaved.md"
  echo "results: $OUT (report: lease-benchmarks/target/bench-results/latest-interleaved.md)"
  exit 0
fi
java -Xmx512m -cp "$CP" -Dbench.out="$OUT" -Dbench.redis="$REDIS_URL" -Dbench.redisPerLibrary="$PER_LIBRARY" \
  -Dbench.noReport=true ${ARGS[@]+"${ARGS[@]}"} \
  io.starintel.lease.bench.BenchMain
uptime > "$OUT/load-after.txt"
java -cp "$CP" io.starintel.lease.bench.BenchReport "$OUT"
cp "$OUT/report.md" "$PWD/lease-benchmarks/target/bench-results/latest.md"
echo "results: $OUT (report: lease-benchmarks/target/bench-results/latest.md)"
