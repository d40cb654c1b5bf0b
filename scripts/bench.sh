#!/usr/bin/env bash
# Builds the integration module's test classes and runs the lease store benchmark
# (io.starintel.lease.it.redis.bench.LeaseStoreBenchmark) against the local Redis.
#   scripts/bench.sh                      # 5 s per case after 2 s warm-up, 1 and 8 threads (~2.5 min)
#   scripts/bench.sh -Dbench.seconds=10   # extra JVM options (bench.seconds, bench.warmup, bench.threads, bench.check)
# Redis: STARINTEL_REDIS_URL or redis://127.0.0.1:6379 (started by scripts/services.sh when it does not answer).
# The round-trip check also starts a private redis-server on a free loopback port, so redis-server must be installed.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && [ -z "${STARINTEL_REDIS_URL:-}" ]; then
  bash scripts/services.sh
fi

CP_FILE=src/it/target/bench.classpath
./mvnw -q -B -pl src/it -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test
exec java -Xms512m -Xmx2g "$@" \
  -cp "src/it/target/test-classes:src/it/target/classes:$(cat "$CP_FILE")" \
  io.starintel.lease.it.redis.bench.LeaseStoreBenchmark
