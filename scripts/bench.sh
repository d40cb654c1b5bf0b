#!/usr/bin/env bash
# Benchmarks of one acquire+release cycle (module lease-benchmarks; docs/benchmarks.md): the bare fenced reference,
# the contract-complete bare script (bare-v3), the lease store, the audited operations path (LeaseService), the path
# an @TargetLeased job takes (job), Redisson RFencedLock and RLock, ShedLock and Spring Integration RedisLockRegistry,
# at 1 and 8 threads, on distinct keys and one contended key, in one run. The bare-v3 prototypes that price single rules
# (bare-v3-no-claims, -no-indexes, -no-history, -lock-only, -compact) and the audited and job paths with the admin
# module's durable Redis stream audit sink (audited-stream, job-stream) run only when named in -Dbench.libraries.
#   bash scripts/bench.sh                                   # JMH: 36 cells x (2 warm-up + 3 x 5 s), 1 fork each
#   bash scripts/bench.sh -Dbench.seconds=1 -Dbench.threads=1 -Dbench.libraries=reference,store   # a quick look
# Options are JVM -D flags: bench.threads (1,8), bench.libraries, bench.keys (distinct,contended), bench.warmup (2),
# bench.iterations (3), bench.seconds (5), bench.heap (1g). Maven flags can go in MAVEN_ARGS.
# --interleaved: instead of JMH, io.starintel.lease.bench.InterleavedRun in one JVM: per cell, all libraries take turns
# in short slices, shuffled per round, and each ratio to the reference is taken per round, then the median (the VM's
# speed drifts by up to +-40 % over minutes). Options: bench.threads, bench.keys, bench.libraries,
# bench.warmupSlices (5), bench.slices (12 rounds), bench.sliceMillis (1000), bench.seed, bench.heap (1g):
#   bash scripts/bench.sh --interleaved -Dbench.threads=1 -Dbench.libraries=reference,store,audited -Dbench.slices=5
# --runs=N (with --interleaved): N whole interleaved runs, each with freshly started servers (run-1 ... run-N), and a
#   summary.md over them (each figure per run, then the median of the runs).
# --renewal: instead, io.starintel.lease.bench.RenewalRun: 100,000 leases held through @TargetLeased and renewed by the
#   starter for 120 s (bench.leases, bench.seconds, bench.audit=true|false); Redis CPU per lease renewal and losses.
# Each library gets its own private redis-server (its keyspace holds only its own keys, as a user's Redis would; JMH
# forks and interleaved slices alike); --shared-redis puts them all on one server instead.
# --replica: each private server gets a replica (a second redis-server with replicaof): the store waits for it after
#   every change (its default), Redisson runs with its replica check (master/replica configuration), and the
#   libraries reference-wait, bare-v3-wait (WAIT 1 behind each script) and store-nowait (the store without its wait)
#   join the default list, so the report prices the wait.
# --fill-keys=N: N other keys (200 bytes, PX 25 h) in every server before the run (-Dbench.fillKeys, -Dbench.fillBytes):
#   with --shared-redis, issue 32's "one shared Redis with ~40k other keys" (--fill-keys=40000).
# Redis: BENCH_REDIS_URL if set (shared by all; no replica); otherwise the private redis-servers started here on free
# loopback ports (so that INFO commandstats / INFO cpu count only the benchmark), stopped at the end; without
# redis-server on the PATH, STARINTEL_REDIS_URL or 127.0.0.1:6379 (then the command and CPU counters include the other
# clients).
# Output: lease-benchmarks/target/bench-results/<UTC time>/ (jmh-t*.json, counters.jsonl, report.md, logs/; with
# --interleaved: interleaved.md, interleaved.jsonl, logs/, and a copy of the report in
# lease-benchmarks/target/bench-results/latest-interleaved.md; with --runs: run-*/ and summary.md, copied to
# latest-summary.md; with --renewal: renewal.md, copied to latest-renewal.md).
# BENCH_CLASSPATH_PREFIX: directories put ahead of the module's classpath (a patched lease.lua for an experiment:
# scripts/bench-prototypes.sh); unset for every published figure.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=jmh
SHARED_REDIS=false
REPLICA=false
RUNS=1
HEAP=""
LIBRARIES=""
ARGS=()
for arg in "$@"; do
  case "$arg" in
    --interleaved) MODE=interleaved ;;
    --renewal) MODE=renewal ;;
    --shared-redis) SHARED_REDIS=true ;;
    --replica) REPLICA=true ;;
    --runs=*) RUNS="${arg#*=}" ;;
    --fill-keys=*) ARGS+=("-Dbench.fillKeys=${arg#*=}") ;;
    -Dbench.heap=*) HEAP="${arg#*=}"; ARGS+=("$arg") ;;
    -Dbench.libraries=*) LIBRARIES="${arg#*=}" ;;
    *) ARGS+=("$arg") ;;
  esac
done
if [ -z "$LIBRARIES" ]; then
  if [ "$REPLICA" = true ]; then
    LIBRARIES="reference,reference-wait,bare-v3,bare-v3-wait,store,store-nowait,audited,job,redisson-fenced,redisson-lock,shedlock,spring-integration"
  else
    LIBRARIES="reference,bare-v3,store,audited,job,redisson-fenced,redisson-lock,shedlock,spring-integration"
  fi
fi
if [ "$MODE" = renewal ]; then LIBRARIES=renewal; fi
if [ -z "$HEAP" ]; then
  if [ "$MODE" = renewal ]; then HEAP=2g; else HEAP=1g; fi
fi
if [ "$REPLICA" = true ] && [ -n "${BENCH_REDIS_URL:-}" ]; then
  echo "--replica starts its own servers; unset BENCH_REDIS_URL" >&2; exit 2
fi

ROOT="$PWD/lease-benchmarks/target/bench-results/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$ROOT"
REDIS_PID_FILES=()
stop_servers() {
  for pid_file in ${REDIS_PID_FILES[@]+"${REDIS_PID_FILES[@]}"}; do
    if [ -s "$pid_file" ]; then
      local pid; pid="$(cat "$pid_file")"
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
  done
  REDIS_PID_FILES=()
}
trap stop_servers EXIT

# starts a private redis-server on the next free loopback port from NEXT_PORT; sets PORT to it. $2: the port of the
# primary it replicates (a replica), or empty
NEXT_PORT=16379
start_redis() {
  local name="$1" primary="${2:-}" port="$NEXT_PORT"
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  NEXT_PORT=$((port + 1))
  REDIS_PID_FILES+=("$OUT/redis-$name.pid")
  local replicaof=()
  if [ -n "$primary" ]; then replicaof=(--replicaof 127.0.0.1 "$primary"); fi
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
    --pidfile "$OUT/redis-$name.pid" --logfile "$OUT/redis-$name.log" --dir "$OUT" --dbfilename "redis-$name.rdb" \
    ${replicaof[@]+"${replicaof[@]}"}
  for _ in $(seq 1 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  if [ -n "$primary" ]; then
    for _ in $(seq 1 200); do
      redis-cli -p "$port" info replication 2>/dev/null | grep -q '^master_link_status:up' && break; sleep 0.1
    done
    redis-cli -p "$port" info replication | grep -q '^master_link_status:up' \
      || { echo "replica $name on port $port did not connect to $primary" >&2; exit 1; }
  fi
  PORT="$port"
}

# starts a primary (and with --replica its replica) named $1; sets URL and REPLICA_URL
start_server() {
  start_redis "$1"
  local primary="$PORT"
  URL="redis://127.0.0.1:$primary"; REPLICA_URL=""
  if [ "$REPLICA" = true ]; then
    start_redis "$1-replica" "$primary"
    REPLICA_URL="redis://127.0.0.1:$PORT"
  fi
}

# starts the servers of one run into $OUT; sets REDIS_URL, REDIS_MODE and the -D flags in SERVER_ARGS
start_servers() {
  SERVER_ARGS=()
  local per_library="" replicas=""
  if [ -n "${BENCH_REDIS_URL:-}" ]; then
    REDIS_URL="$BENCH_REDIS_URL"; REDIS_MODE="given server (BENCH_REDIS_URL)"
  elif command -v redis-server >/dev/null 2>&1; then
    local with=""
    if [ "$REPLICA" = true ]; then with=", each with a replica"; fi
    if [ "$SHARED_REDIS" = true ]; then
      start_server shared
      REDIS_URL="$URL"; REDIS_MODE="one private redis-server for all libraries$with (only the benchmark's clients)"
      if [ -n "$REPLICA_URL" ]; then SERVER_ARGS+=("-Dbench.replica=$REPLICA_URL"); fi
    else
      # one private server per library: each keyspace holds only its library's keys, as a user's Redis would (the
      # store keeps idempotency records for the policy's retention, the reference for 60 s: on one shared server the
      # store's keys slow every library's commands down); REDIS_URL is the first one's (version, fallback)
      REDIS_URL=""
      for library in ${LIBRARIES//,/ }; do
        start_server "$library"
        per_library="${per_library:+$per_library,}$library=$URL"
        if [ -n "$REPLICA_URL" ]; then replicas="${replicas:+$replicas,}$library=$REPLICA_URL"; fi
        REDIS_URL="${REDIS_URL:-$URL}"
      done
      REDIS_MODE="one private redis-server per library$with (only the benchmark's clients)"
      SERVER_ARGS+=("-Dbench.redisPerLibrary=$per_library")
      if [ -n "$replicas" ]; then SERVER_ARGS+=("-Dbench.replicaPerLibrary=$replicas"); fi
      if [ "$MODE" = renewal ]; then
        SERVER_ARGS=(); if [ -n "$REPLICA_URL" ]; then SERVER_ARGS+=("-Dbench.replica=$REPLICA_URL"); fi
      fi
    fi
  else
    REDIS_URL="${STARINTEL_REDIS_URL:-redis://127.0.0.1:6379}"
    REDIS_MODE="shared server $REDIS_URL (counters include other clients)"
    if ! redis-cli -u "$REDIS_URL" ping >/dev/null 2>&1; then bash scripts/services.sh; fi
  fi
}

# shellcheck disable=SC2086
./mvnw -q -B ${MAVEN_ARGS:-} -pl lease-benchmarks -am compile dependency:build-classpath -Dmaven.test.skip=true \
  -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=runtime
CP="${BENCH_CLASSPATH_PREFIX:+$BENCH_CLASSPATH_PREFIX:}lease-benchmarks/target/classes:$(cat lease-benchmarks/target/bench.classpath)"

# writes environment.txt and load-before.txt of the run in $OUT
describe_run() {
  local version
  version="$(redis-cli -u "$REDIS_URL" info server 2>/dev/null | tr -d '\r' | sed -n 's/^redis_version://p')"
  {
    echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "$(nproc) cores, $(java -version 2>&1 | head -1), Redis ${version:-?}: $REDIS_MODE"
  } > "$OUT/environment.txt"
  uptime > "$OUT/load-before.txt"
}

RESULTS="$PWD/lease-benchmarks/target/bench-results"
case "$MODE" in
  renewal)
    OUT="$ROOT"; start_servers; describe_run
    java "-Xms$HEAP" "-Xmx$HEAP" -cp "$CP" -Dbench.out="$OUT" -Dbench.redis="$REDIS_URL" \
      ${SERVER_ARGS[@]+"${SERVER_ARGS[@]}"} ${ARGS[@]+"${ARGS[@]}"} io.starintel.lease.bench.RenewalRun
    uptime > "$OUT/load-after.txt"
    cp "$OUT/renewal.md" "$RESULTS/latest-renewal.md"
    echo "results: $OUT (report: lease-benchmarks/target/bench-results/latest-renewal.md)"
    ;;
  interleaved)
    RUN_DIRS=()
    for run in $(seq 1 "$RUNS"); do
      if [ "$RUNS" -gt 1 ]; then OUT="$ROOT/run-$run"; mkdir -p "$OUT"; else OUT="$ROOT"; fi
      start_servers; describe_run
      java "-Xms$HEAP" "-Xmx$HEAP" -cp "$CP" -Dbench.out="$OUT" -Dbench.redis="$REDIS_URL" \
        -Dbench.redisMode="$REDIS_MODE" -Dbench.libraries="$LIBRARIES" ${SERVER_ARGS[@]+"${SERVER_ARGS[@]}"} \
        ${ARGS[@]+"${ARGS[@]}"} io.starintel.lease.bench.InterleavedRun
      uptime > "$OUT/load-after.txt"
      stop_servers
      RUN_DIRS+=("$OUT")
    done
    if [ "$RUNS" -gt 1 ]; then
      java -cp "$CP" io.starintel.lease.bench.InterleavedReport --summary "$ROOT" "${RUN_DIRS[@]}" > /dev/null
      cp "$ROOT/summary.md" "$RESULTS/latest-summary.md"
      echo "results: $ROOT (summary: lease-benchmarks/target/bench-results/latest-summary.md)"
    else
      cp "$OUT/interleaved.md" "$RESULTS/latest-interleaved.md"
      echo "results: $OUT (report: lease-benchmarks/target/bench-results/latest-interleaved.md)"
    fi
    ;;
  jmh)
    OUT="$ROOT"; start_servers; describe_run
    java -Xmx512m -cp "$CP" -Dbench.out="$OUT" -Dbench.redis="$REDIS_URL" -Dbench.libraries="$LIBRARIES" \
      -Dbench.noReport=true ${SERVER_ARGS[@]+"${SERVER_ARGS[@]}"} ${ARGS[@]+"${ARGS[@]}"} \
      io.starintel.lease.bench.BenchMain
    uptime > "$OUT/load-after.txt"
    java -cp "$CP" io.starintel.lease.bench.BenchReport "$OUT"
    cp "$OUT/report.md" "$RESULTS/latest.md"
    echo "results: $OUT (report: lease-benchmarks/target/bench-results/latest.md)"
    ;;
esac
