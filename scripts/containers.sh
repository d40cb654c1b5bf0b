#!/usr/bin/env bash
# A Docker engine and the service images for the suites' Testcontainers, built locally (no container registry is
# needed). Called by scripts/test.sh (and so by .ci/run) before the Maven runs. Idempotent; prints what it decided.
#
#   bash scripts/containers.sh [up]    engine + images; exit 0 = ready, 3 = containers not available (the suites then
#                                      use the local servers of scripts/services.sh), other = error
#   bash scripts/containers.sh reap    remove the containers of test JVMs that no longer run (with Ryuk off, a killed
#                                      JVM leaves its containers behind); the containers of running JVMs stay
#   bash scripts/containers.sh down    reap, then stop the daemon if `up` started it (a daemon that was already
#                                      running when `up` came is never stopped)
#   bash scripts/containers.sh status  engine, images, test containers
#
# What `up` does (the verified sequence of ../shared/containers/README.md, folded in here):
#   1. Debian's docker.io and debootstrap, `apt-get install`ed when dockerd or debootstrap is missing;
#   2. `dockerd --iptables=false --ip-forward=false --ip 127.0.0.1` when no daemon answers (no firewall or sysctl
#      change; published ports on 127.0.0.1 only); it is left running for the test run and later runs;
#   3. local/debian:bookworm: a debootstrap minbase rootfs from the Debian mirror apt already uses, `docker import`ed;
#   4. valkey:8.0.1-local (../shared/valkey), redis:7.0.15-local and rabbitmq:3.10.8-local (Debian's packages),
#      couchdb:3.4.3-local (../shared/couchdb), `docker build --network host`.
# Images are the cache: an image whose recipe (its Dockerfile, inputs and base image) is unchanged is reused, so
# only the first run on a machine builds (~1.5-2 min); REBUILD=1 rebuilds all and prunes the replaced layers.
#
# Environment:
#   STARINTEL_CONTAINERS=false   do nothing (exit 3): the suites use the local servers
#   STARINTEL_CONTAINERS=true    containers are required: any failure is an error (exit 1), never exit 3
#   STARINTEL_DOCKER_INSTALL=false  never apt-get install (exit 3 when the engine is missing)
#   STARINTEL_DOCKER_DATA_ROOT   dockerd --data-root when this script starts it (default /var/lib/docker)
#   STARINTEL_CONTAINERS_WORK    scratch, build contexts, daemon log and pid (default /var/tmp/starintel-containers)
#   REBUILD=1                    rebuild every image
# Image names the suites use: see docs/testing.md ("The project's own suites"); STARINTEL_*_IMAGE chooses others.
set -euo pipefail

PROJECT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${STARINTEL_CONTAINERS_WORK:-/var/tmp/starintel-containers}"
DATA_ROOT="${STARINTEL_DOCKER_DATA_ROOT:-/var/lib/docker}"
DAEMON_PID="$WORK/dockerd.pid"
DAEMON_LOG="$WORK/dockerd.log"
BASE_IMAGE="local/debian:bookworm"
PID_LABEL="io.starintel.lease.test.pid"   # set by the suites on every container they start (TestContainers)
RECIPE_LABEL="io.starintel.lease.recipe"
MODE="${STARINTEL_CONTAINERS:-auto}"
ACTION="${1:-up}"

say() { echo "containers: $*"; }

# not_available <why>: containers cannot be used; the suites fall back to local servers (exit 3), unless required
not_available() {
  if [ "$MODE" = "true" ]; then
    echo "ERROR: containers: $* (STARINTEL_CONTAINERS=true requires them)" >&2
    exit 1
  fi
  say "NOT AVAILABLE: $*; the suites use the local servers (scripts/services.sh, STARINTEL_* variables)"
  exit 3
}

timed() {
  local start=$SECONDS
  "$@"
  say "TIMING $((SECONDS - start)) s: $*"
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo -E "$@"
  else
    return 1
  fi
}

# The first shared/ folder found beside: this checkout; its main checkout (a git worktree); the checkout this one
# was cloned from, when that is a local path. The same search as scripts/services.sh.
find_shared_dir() {
  local common origin candidate
  common="$(git -C "$PROJECT_DIR" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)"
  origin="$(git -C "$PROJECT_DIR" config --get remote.origin.url 2>/dev/null || true)"
  case "$origin" in /*) ;; file://*) origin="${origin#file://}" ;; *) origin="" ;; esac
  for candidate in "$PROJECT_DIR/../shared" ${common:+"$(dirname "$common")/../shared"} \
    ${origin:+"$origin/../shared"}; do
    if [ -d "$candidate" ]; then
      (cd "$candidate" && pwd)
      return 0
    fi
  done
}

daemon_answers() { timeout 10 docker info >/dev/null 2>&1; }

# ---------- teardown ----------
# Containers started by the suites carry the pid of their JVM; a container whose JVM is gone is removed. Containers
# without that label (someone else's) are left alone.
reap() {
  daemon_answers || return 0
  local id pid removed=0
  while read -r id pid; do
    [ -n "$id" ] || continue
    if [ -n "$pid" ] && [ "$pid" != "<no value>" ] && tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q java; then
      continue
    fi
    docker rm -f "$id" >/dev/null 2>&1 && removed=$((removed + 1))
  done < <(docker ps -aq --filter "label=$PID_LABEL" | while read -r id; do
    echo "$id $(docker inspect -f "{{index .Config.Labels \"$PID_LABEL\"}}" "$id" 2>/dev/null)"
  done)
  say "reaped $removed container(s) left by test JVMs that no longer run"
}

stop_daemon() {
  [ -s "$DAEMON_PID" ] || { say "daemon not started by this script: left alone"; return 0; }
  local pid
  pid="$(cat "$DAEMON_PID")"
  rm -f "$DAEMON_PID"
  if ! kill -0 "$pid" 2>/dev/null; then
    say "daemon pid $pid no longer runs"
    return 0
  fi
  say "stopping dockerd (pid $pid)"
  kill -TERM "$pid"
  for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  ip link delete docker0 2>/dev/null || true
}

# ---------- 1. engine ----------
ensure_engine_installed() {
  local missing=()
  command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
  command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
  command -v docker >/dev/null 2>&1 || missing+=(docker.io)
  if [ "${#missing[@]}" -eq 0 ]; then
    say "engine: installed ($(dockerd --version 2>/dev/null | head -1))"
    return 0
  fi
  [ "${STARINTEL_DOCKER_INSTALL:-true}" != "false" ] || not_available "${missing[*]} missing and STARINTEL_DOCKER_INSTALL=false"
  command -v apt-get >/dev/null 2>&1 || not_available "${missing[*]} missing and there is no apt-get"
  say "engine: installing docker.io debootstrap (apt-get, log: $WORK/apt.log)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >"$WORK/apt.log" 2>&1 &&
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends docker.io debootstrap \
      >>"$WORK/apt.log" 2>&1 ||
    not_available "apt-get install docker.io debootstrap failed (log: $WORK/apt.log)"
}

# ---------- 2. daemon ----------
ensure_daemon() {
  if daemon_answers; then
    if [ -s "$DAEMON_PID" ] && kill -0 "$(cat "$DAEMON_PID")" 2>/dev/null; then
      say "daemon: already running (pid $(cat "$DAEMON_PID"), started by this script earlier): using it"
    else
      rm -f "$DAEMON_PID"
      say "daemon: one already answers (not started by this script): using it, never stopping it"
    fi
    return 0
  fi
  say "daemon: starting dockerd --iptables=false --ip-forward=false --ip 127.0.0.1 (log: $DAEMON_LOG)"
  as_root true || not_available "dockerd needs root"
  setsid nohup dockerd --iptables=false --ip-forward=false --ip 127.0.0.1 --data-root "$DATA_ROOT" \
    --pidfile "$WORK/dockerd.docker-pid" >"$DAEMON_LOG" 2>&1 </dev/null 9>&- &
  echo $! >"$DAEMON_PID"
  for _ in $(seq 1 120); do
    if daemon_answers; then
      say "daemon: up (pid $(cat "$DAEMON_PID"), $(docker version -f '{{.Server.Version}}' 2>/dev/null))"
      return 0
    fi
    kill -0 "$(cat "$DAEMON_PID")" 2>/dev/null || break
    sleep 0.25
  done
  tail -5 "$DAEMON_LOG" >&2 || true
  stop_daemon >/dev/null 2>&1 || true
  not_available "dockerd did not come up (log: $DAEMON_LOG)"
}

# ---------- 3./4. images ----------
recipe_of() { docker image inspect -f "{{index .Config.Labels \"$RECIPE_LABEL\"}}" "$1" 2>/dev/null || true; }

# current <image> <recipe>: the image exists with that recipe (and REBUILD is not set)
current() { [ "${REBUILD:-0}" != 1 ] && [ "$(recipe_of "$1")" = "$2" ]; }

debian_mirror() {
  { grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}'
    grep -h '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}'; } | grep -v security | head -1
}

build_base() {
  local recipe="debootstrap --variant=minbase bookworm v1"
  if current "$BASE_IMAGE" "$recipe"; then
    say "image $BASE_IMAGE: present (cached)"
    return 0
  fi
  local mirror
  mirror="$(debian_mirror)"
  [ -n "$mirror" ] || { echo "ERROR: containers: no Debian mirror in apt's sources" >&2; return 1; }
  say "image $BASE_IMAGE: building (debootstrap from $mirror, log: $WORK/debootstrap.log)"
  rm -rf "$WORK/rootfs"
  debootstrap --variant=minbase bookworm "$WORK/rootfs" "$mirror" >"$WORK/debootstrap.log" 2>&1 || {
    echo "ERROR: containers: debootstrap failed (log: $WORK/debootstrap.log)" >&2
    return 1
  }
  chroot "$WORK/rootfs" apt-get clean
  tar --numeric-owner -C "$WORK/rootfs" -c . |
    docker import -c 'CMD ["/bin/bash"]' -c 'ENV LANG=C.UTF-8' -c "LABEL $RECIPE_LABEL=\"$recipe\"" - "$BASE_IMAGE" \
      >/dev/null
  rm -rf "$WORK/rootfs"
}

# build_image <tag> <context dir>: the recipe is the context's Dockerfile, the names and sizes of its other files
# and the base image's id
build_image() {
  local tag="$1" context="$2" recipe
  recipe="$({ docker image inspect -f '{{.Id}}' "$BASE_IMAGE"; cat "$context/Dockerfile"
    (cd "$context" && find . -type f ! -name Dockerfile -printf '%p %s\n' | sort); } | sha256sum | cut -c1-16)"
  if current "$tag" "$recipe"; then
    say "image $tag: present (cached)"
    return 0
  fi
  say "image $tag: building (log: $WORK/build-${tag%%:*}.log)"
  docker build --network host --label "$RECIPE_LABEL=$recipe" -t "$tag" "$context" \
    >"$WORK/build-${tag%%:*}.log" 2>&1 || {
    echo "ERROR: containers: docker build of $tag failed (log: $WORK/build-${tag%%:*}.log)" >&2
    return 1
  }
}

write_contexts() {
  local shared="$1"
  rm -rf "$WORK/ctx" && mkdir -p "$WORK/ctx/valkey" "$WORK/ctx/redis" "$WORK/ctx/rabbitmq" "$WORK/ctx/couchdb"
  cp "$shared/valkey/valkey-server-8.0.1-debian12-x86_64" "$WORK/ctx/valkey/valkey-server"
  chmod 755 "$WORK/ctx/valkey/valkey-server"
  cat >"$WORK/ctx/valkey/Dockerfile" <<'DF'
FROM local/debian:bookworm
COPY valkey-server /usr/local/bin/valkey-server
WORKDIR /data
EXPOSE 6379
ENTRYPOINT ["/usr/local/bin/valkey-server"]
CMD ["--bind", "0.0.0.0", "--protected-mode", "no", "--save", "", "--appendonly", "no"]
DF
  cat >"$WORK/ctx/redis/Dockerfile" <<'DF'
FROM local/debian:bookworm
RUN apt-get update && apt-get install -y --no-install-recommends redis-server && apt-get clean && rm -rf /var/lib/apt/lists/*
WORKDIR /data
EXPOSE 6379
ENTRYPOINT ["/usr/bin/redis-server"]
CMD ["--bind", "0.0.0.0", "--protected-mode", "no", "--save", "", "--appendonly", "no"]
DF
  cat >"$WORK/ctx/rabbitmq/Dockerfile" <<'DF'
FROM local/debian:bookworm
RUN apt-get update && apt-get install -y --no-install-recommends rabbitmq-server && apt-get clean && rm -rf /var/lib/apt/lists/*
# as in the official image: guest may log in from outside the container; logs go to stdout
# (Testcontainers' RabbitMQContainer waits for "Server startup complete" in the container log)
RUN printf 'loopback_users.guest = false\nlisteners.tcp.default = 5672\n' > /etc/rabbitmq/rabbitmq.conf \
 && rm -f /etc/rabbitmq/rabbitmq-env.conf
ENV RABBITMQ_LOGS=- HOME=/var/lib/rabbitmq
USER rabbitmq
WORKDIR /var/lib/rabbitmq
EXPOSE 5672 15672
CMD ["/usr/lib/rabbitmq/bin/rabbitmq-server"]
DF
  cp "$shared/couchdb/couchdb-3.4.3-debian12-x86_64.tar.gz" "$WORK/ctx/couchdb/"
  cat >"$WORK/ctx/couchdb/local.ini" <<'INI'
[couchdb]
single_node = true
js_engine = quickjs
database_dir = /opt/couchdb/data
view_index_dir = /opt/couchdb/data

[chttpd]
bind_address = 0.0.0.0
port = 5984

[cluster]
n = 1

[admins]
admin = admin
INI
  cat >"$WORK/ctx/couchdb/Dockerfile" <<'DF'
FROM local/debian:bookworm
RUN apt-get update && apt-get install -y --no-install-recommends libicu72 libssl3 libstdc++6 libgcc-s1 libtinfo6 zlib1g \
 && apt-get clean && rm -rf /var/lib/apt/lists/*
ADD couchdb-3.4.3-debian12-x86_64.tar.gz /opt/
RUN mv /opt/couchdb-3.4.3 /opt/couchdb && mkdir -p /opt/couchdb/data
COPY local.ini /opt/couchdb/etc/local.ini
ENV ERL_EPMD_ADDRESS=127.0.0.1
WORKDIR /opt/couchdb
EXPOSE 5984
CMD ["/opt/couchdb/bin/couchdb"]
DF
}

ensure_images() {
  local shared
  shared="$(find_shared_dir)"
  [ -n "$shared" ] && [ -f "$shared/valkey/valkey-server-8.0.1-debian12-x86_64" ] &&
    [ -f "$shared/couchdb/couchdb-3.4.3-debian12-x86_64.tar.gz" ] ||
    not_available "no ../shared/valkey and ../shared/couchdb beside the project: cannot build the local images"
  say "images: from $shared (the project's ../shared)"
  timed build_base || not_available "the base image $BASE_IMAGE could not be built"
  write_contexts "$shared"
  local tag dir failed=""
  for tag in valkey:8.0.1-local redis:7.0.15-local rabbitmq:3.10.8-local couchdb:3.4.3-local; do
    dir="$WORK/ctx/$(echo "$tag" | cut -d: -f1)"
    timed build_image "$tag" "$dir" || failed="$failed $tag"
  done
  [ -z "$failed" ] || not_available "image build failed:$failed"
  if [ "${REBUILD:-0}" = 1 ]; then
    docker image prune -f >/dev/null
    say "pruned the images the rebuild replaced"
  fi
}

status() {
  if ! daemon_answers; then
    say "no Docker daemon answers"
    return 0
  fi
  say "daemon $(docker version -f '{{.Server.Version}}' 2>/dev/null) ($([ -s "$DAEMON_PID" ] && echo "started by this script, pid $(cat "$DAEMON_PID")" || echo "not started by this script"))"
  docker images --format '{{.Repository}}:{{.Tag}}\t{{.Size}}' | grep -E -- '-local|local/debian' || true
  docker ps -a --filter "label=$PID_LABEL" --format "{{.ID}} {{.Image}} {{.Status}} pid={{.Label \"$PID_LABEL\"}}"
}

mkdir -p "$WORK"
case "$ACTION" in
  up)
    if [ "$MODE" = "false" ]; then
      say "disabled by STARINTEL_CONTAINERS=false: the suites use the local servers"
      exit 3
    fi
    exec 9>"$WORK/lock"
    flock 9   # one `up` at a time on this machine (the daemon and the images are machine-wide)
    ensure_engine_installed
    timed ensure_daemon
    reap
    ensure_images
    say "ready: the suites run their servers in containers (docker $(docker version -f '{{.Server.Version}}'))"
    ;;
  reap) reap ;;
  down)
    reap
    stop_daemon
    ;;
  status) status ;;
  *)
    echo "usage: $0 [up|reap|down|status]" >&2
    exit 2
    ;;
esac
