#!/usr/bin/env bash
# CI entry point (.ci/run, which exports CI=true): start the servers, then prove both supported Spring Boot lines.
#   0. the servers: the local ones (scripts/services.sh: pouchdb-server and Chromium are always local; the others are
#      the fallback), then a Docker engine and the locally built images (scripts/containers.sh). When that is ready the
#      suites run Redis, Valkey, RabbitMQ, Apache CouchDB and the Redis Cluster in containers (STARINTEL_CONTAINERS=true
#      for both Maven runs); when it is not, they use the local servers (STARINTEL_CONTAINERS=false). Under CI=true a
#      missing server fails its suite, never skips. Containers of a killed test JVM are removed at the end (reap).
#   1. the full build (unit tests, every integration suite, the consumer app) on the pinned Spring Boot 4.0.x;
#   2. the same full verify with -Pspring-boot-4.1 (the newest 4.1.x: Lettuce 7, Spring Data Redis 4.1,
#      Spring AMQP 4.1): unit tests plus the Redis, fence, job and admin suites, and the consumer app built on Boot 4.1
#      against the artifacts the first run installed (what a user on Boot 4.1 gets); the failover load runs
#      (Redis-level, ~25 s of load per topology) only in the first pass.
# Extra arguments go to both Maven runs. On a 2-core machine the first run takes about 19 minutes (src/it 13 of them:
# the consumer app's build and suite ~1.5, the failover load runs ~2.7) and the second about 13.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/services.sh
containers=0
bash scripts/containers.sh up || containers=$?
case "$containers" in
  0)
    export STARINTEL_CONTAINERS="${STARINTEL_CONTAINERS:-true}"
    trap 'bash scripts/containers.sh reap || true' EXIT
    echo "== servers: containers (Testcontainers; images built by scripts/containers.sh)"
    ;;
  3)
    export STARINTEL_CONTAINERS=false
    echo "== servers: local (scripts/services.sh): containers are not available, see above"
    ;;
  *) exit "$containers" ;;
esac
start=$(date +%s)
echo "== Spring Boot 4.0.x (pinned): full build"
# install (not just verify): the consumer test (src/it ConsumerAppTwoProcessTests) builds src/it/consumer-app
# against the installed lease artifacts exactly as a user's application would, and starts it as two JVMs
./mvnw -B install -Dconsumer.it=true "$@"
# the failover load runs exercise Redis rather than the Boot line: they ran in the first pass (-Dfailover.load=off)
echo "== Spring Boot 4.1.x (-Pspring-boot-4.1): full verify"
# the consumer app again, on Boot 4.1 (ConsumerAppTwoProcessTests passes the build's spring-boot.version to its build)
./mvnw -B -Pspring-boot-4.1 verify -Dfailover.load=off -Dconsumer.it=true "$@"
echo "== both Spring Boot lines passed in $(( $(date +%s) - start )) s"
