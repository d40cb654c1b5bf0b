#!/usr/bin/env bash
# Ensure the backing services used by the integration tests are running:
#   Redis     127.0.0.1:6379
#   RabbitMQ  127.0.0.1:5672 (guest/guest)
#   CouchDB-compatible server (pouchdb-server) 127.0.0.1:5984
#   Apache CouchDB 3.4.3 (from ../shared/couchdb) 127.0.0.1:5986 (admin/admin)
#   Valkey 8 (from ../shared/valkey) 127.0.0.1:6390
# Idempotent: a service that already answers is left alone (except an Apache CouchDB that this script started from a
# checkout deleted since: it is started again).
# The tests find these through one convention (lease-test-support's ServiceEnvironment): STARINTEL_REDIS_URL,
# STARINTEL_VALKEY_URL, STARINTEL_RABBIT_HOST, STARINTEL_COUCHDB_URL, STARINTEL_COUCHDB_REAL_URL (+ _USER,
# _PASSWORD); unset means the defaults above.
set -euo pipefail

PROJECT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
SERVICES_DIR="$PROJECT_DIR/.services"
POUCH_DIR="$SERVICES_DIR/pouchdb"
POUCH_DATA="$SERVICES_DIR/pouchdb-data"
REDIS_LOG="$SERVICES_DIR/redis.log"
POUCH_LOG="$SERVICES_DIR/pouchdb.log"
RABBIT_LOG="$SERVICES_DIR/rabbitmq-start.log"
POUCH_VERSION="4.2.0"
TIMEOUT_SECONDS=60

mkdir -p "$SERVICES_DIR"

export DEBIAN_FRONTEND=noninteractive
APT_UPDATED=0

fail() {
  echo "ERROR: $*" >&2
  exit 1
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo -E "$@"
  else
    fail "need root (or sudo) to run: $*"
  fi
}

apt_install() {
  command -v apt-get >/dev/null 2>&1 || fail "apt-get not available; install $* manually"
  if [ "$APT_UPDATED" -eq 0 ]; then
    echo "apt-get update"
    as_root apt-get update -q
    APT_UPDATED=1
  fi
  echo "apt-get install -y $*"
  as_root apt-get install -y -q "$@"
}

# wait_for <name> <logfile> <check-function>
wait_for() {
  local name="$1" log="$2" check="$3"
  local tries=$((TIMEOUT_SECONDS * 2)) i
  for ((i = 0; i < tries; i++)); do
    if "$check"; then
      echo "$name: up"
      return 0
    fi
    sleep 0.5
  done
  fail "$name did not become ready within ${TIMEOUT_SECONDS}s; read the log: $log"
}

# ---------- checks ----------
redis_up() {
  command -v redis-cli >/dev/null 2>&1 &&
    [ "$(timeout 2 redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" = "PONG" ]
}

rabbit_up() {
  timeout 2 bash -c '</dev/tcp/127.0.0.1/5672' >/dev/null 2>&1
}

couch_up() {
  curl -sf --max-time 2 http://127.0.0.1:5984/ >/dev/null 2>&1
}

# ---------- Redis ----------
ensure_redis() {
  if redis_up; then
    echo "redis: already up"
    return 0
  fi
  if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
    echo "redis: installing redis-server"
    apt_install redis-server
  fi
  echo "redis: starting (log: $REDIS_LOG)"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --logfile "$REDIS_LOG" ||
    fail "redis failed to start; read the log: $REDIS_LOG"
  wait_for redis "$REDIS_LOG" redis_up
}

# ---------- ../shared (the environment's servers: Valkey, Apache CouchDB) ----------
# The first shared/ folder found beside: this checkout; its main checkout (a git worktree); the checkout this one
# was cloned from, when that is a local path (a fresh `git clone .` into another folder, as CI may do). Empty if none.
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
SHARED_DIR="$(find_shared_dir)"

# ---------- Valkey (../shared/valkey, not packaged in Debian) ----------
# Valkey 127.0.0.1:6390 for the Valkey runs of the Redis store suites. With STARINTEL_VALKEY_URL set, that server
# is used as it is. Otherwise valkey-server from ../shared/valkey (copied into .services/valkey/, or built from the
# source tarball there when the binary cannot run on this machine) is started on 127.0.0.1:$VALKEY_PORT; one that
# already answers there is left alone. STARINTEL_VALKEY_DIR replaces ../shared/valkey (e.g. from a git worktree).
# The suites also launch that binary themselves (restart and cluster tests), from .services/valkey/valkey-server.
# Without ../shared/valkey: an error under CI=true, a warning otherwise (the suites' Valkey classes are then
# reported as skipped).
VALKEY_VERSION="8.0.1"
VALKEY_PORT=6390
VALKEY_SHARED="${STARINTEL_VALKEY_DIR:-${SHARED_DIR:-$PROJECT_DIR/../shared}/valkey}"
VALKEY_DIR="$SERVICES_DIR/valkey"
VALKEY_BIN="$VALKEY_DIR/valkey-server"
VALKEY_LOG="$SERVICES_DIR/valkey.log"

valkey_url_up() {
  [ "$(timeout 2 redis-cli -u "$1" ping 2>/dev/null)" = "PONG" ]
}

valkey_local_up() {
  valkey_url_up "redis://127.0.0.1:$VALKEY_PORT"
}

valkey_binary_runs() {
  [ -x "$VALKEY_BIN" ] && "$VALKEY_BIN" --version 2>/dev/null | grep -q "^Valkey server v=$VALKEY_VERSION "
}

install_valkey() {
  valkey_binary_runs && return 0
  mkdir -p "$VALKEY_DIR"
  cp "$VALKEY_SHARED/valkey-server-$VALKEY_VERSION-debian12-x86_64" "$VALKEY_BIN" && chmod u+wx "$VALKEY_BIN" ||
    fail "valkey: could not copy the binary from $VALKEY_SHARED into $VALKEY_DIR"
  valkey_binary_runs && return 0
  echo "valkey: the shared binary does not run here; building $VALKEY_VERSION from source (several minutes," \
    "log: $VALKEY_DIR/build.log)"
  rm -rf "$VALKEY_DIR/build" && mkdir -p "$VALKEY_DIR/build"
  tar xzf "$VALKEY_SHARED/valkey-$VALKEY_VERSION-src.tar.gz" -C "$VALKEY_DIR/build" &&
    make -C "$VALKEY_DIR/build/valkey-$VALKEY_VERSION" -j2 BUILD_TLS=no >"$VALKEY_DIR/build.log" 2>&1 ||
    fail "valkey: building from source failed; read the log: $VALKEY_DIR/build.log"
  cp "$VALKEY_DIR/build/valkey-$VALKEY_VERSION/src/valkey-server" "$VALKEY_BIN" ||
    fail "valkey: the build left no src/valkey-server; read the log: $VALKEY_DIR/build.log"
  valkey_binary_runs || fail "valkey: the built valkey-server does not run; read the log: $VALKEY_DIR/build.log"
}

ensure_valkey() {
  command -v redis-cli >/dev/null 2>&1 || fail "valkey: redis-cli is needed to check Valkey (it comes with Redis)"
  if [ ! -d "$VALKEY_SHARED" ]; then
    local message="valkey: $VALKEY_SHARED not found: cannot start Valkey nor run the suites' own Valkey servers"
    [ "${CI:-}" = "true" ] && fail "$message (CI=true: the Valkey runs of the Redis suites would fail)"
    echo "WARNING: $message; the Valkey runs of the Redis suites will be reported as skipped" >&2
  else
    install_valkey
  fi
  if [ -n "${STARINTEL_VALKEY_URL:-}" ]; then
    valkey_url_up "$STARINTEL_VALKEY_URL" ||
      fail "valkey: STARINTEL_VALKEY_URL=$STARINTEL_VALKEY_URL does not answer PING"
    echo "valkey: using STARINTEL_VALKEY_URL=$STARINTEL_VALKEY_URL"
    return 0
  fi
  export STARINTEL_VALKEY_URL="redis://127.0.0.1:$VALKEY_PORT"
  if valkey_local_up; then
    timeout 2 redis-cli -p "$VALKEY_PORT" info server | grep -q '^server_name:valkey' ||
      fail "valkey: 127.0.0.1:$VALKEY_PORT answers but is not Valkey (INFO server has no server_name:valkey)"
    echo "valkey: already up ($STARINTEL_VALKEY_URL)"
    return 0
  fi
  if [ ! -d "$VALKEY_SHARED" ]; then
    unset STARINTEL_VALKEY_URL
    return 0
  fi
  echo "valkey: starting $VALKEY_VERSION on 127.0.0.1:$VALKEY_PORT (log: $VALKEY_LOG)"
  "$VALKEY_BIN" --daemonize yes --bind 127.0.0.1 --port "$VALKEY_PORT" --save "" --appendonly no \
    --dir "$VALKEY_DIR" --pidfile "$SERVICES_DIR/valkey.pid" --logfile "$VALKEY_LOG" ||
    fail "valkey failed to start; read the log: $VALKEY_LOG"
  wait_for valkey "$VALKEY_LOG" valkey_local_up
  echo "valkey: $STARINTEL_VALKEY_URL"
}

# ---------- RabbitMQ ----------
ensure_rabbit() {
  if rabbit_up; then
    echo "rabbitmq: already up"
    return 0
  fi
  if ! command -v rabbitmq-server >/dev/null 2>&1; then
    echo "rabbitmq: installing rabbitmq-server"
    apt_install rabbitmq-server
  fi
  echo "rabbitmq: starting (log: $RABBIT_LOG, server logs in /var/log/rabbitmq/)"
  as_root rabbitmq-server -detached >"$RABBIT_LOG" 2>&1 ||
    fail "rabbitmq failed to start; read the log: $RABBIT_LOG (and /var/log/rabbitmq/)"
  wait_for rabbitmq "$RABBIT_LOG (and /var/log/rabbitmq/)" rabbit_up
}

# ---------- CouchDB-compatible (pouchdb-server) ----------
ensure_couch() {
  if couch_up; then
    echo "couchdb: already up"
    return 0
  fi
  command -v node >/dev/null 2>&1 || fail "couchdb: node is required for pouchdb-server but was not found"
  local bin="$POUCH_DIR/node_modules/pouchdb-server/bin/pouchdb-server"
  if [ ! -f "$bin" ]; then
    command -v npm >/dev/null 2>&1 || fail "couchdb: npm is required to install pouchdb-server but was not found"
    echo "couchdb: installing pouchdb-server@$POUCH_VERSION into $POUCH_DIR"
    mkdir -p "$POUCH_DIR"
    npm install --prefix "$POUCH_DIR" --no-audit --no-fund --ignore-scripts \
      "pouchdb-server@$POUCH_VERSION" >"$SERVICES_DIR/pouchdb-install.log" 2>&1 ||
      fail "couchdb: npm install of pouchdb-server failed; read the log: $SERVICES_DIR/pouchdb-install.log"
  fi
  mkdir -p "$POUCH_DATA"
  echo "couchdb: starting pouchdb-server (log: $POUCH_LOG)"
  (cd "$POUCH_DATA" && setsid nohup node "$bin" -o 127.0.0.1 -p 5984 -d "$POUCH_DATA" \
    -c "$POUCH_DATA/config.json" -n -m >>"$POUCH_LOG" 2>&1 </dev/null &)
  wait_for couchdb "$POUCH_LOG" couch_up
}

# ---------- Apache CouchDB 3.4.3 (the real server, beside pouchdb-server) ----------
# From ../shared/couchdb/ (a release with its own Erlang runtime; read-only in CI): unpacked into .services/,
# started on its own port with admin credentials. STARINTEL_COUCHDB_REAL_URL given: that server is used as is.
# The suites read STARINTEL_COUCHDB_REAL_URL / _USER / _PASSWORD and default to what is started here.
COUCHDB_REAL_PORT="${STARINTEL_COUCHDB_REAL_PORT:-5986}"

# stop_orphaned_real_couchdb <url>: stops the CouchDB runtimes started by this script (a .services/couchdb-3.4.3
# release) whose executable was deleted with its checkout, and waits until <url> no longer answers; false when there
# is none. Any other server on the port is left alone.
stop_orphaned_real_couchdb() {
  local pid exe found=1 i
  for pid in $(pgrep -f '/\.services/couchdb-3\.4\.3/' || true); do
    exe="$(readlink "/proc/$pid/exe" 2>/dev/null || true)"
    case "$exe" in
      *" (deleted)")
        echo "apache-couchdb: stopping pid $pid, started from a checkout that no longer exists"
        kill "$pid" 2>/dev/null || true
        found=0
        ;;
    esac
  done
  [ "$found" -eq 0 ] || return 1
  for ((i = 0; i < TIMEOUT_SECONDS * 2; i++)); do
    curl -sf --max-time 1 "$1/_up" >/dev/null 2>&1 || return 0
    sleep 0.5
  done
  return 1
}

ensure_real_couchdb() {
  local user="${STARINTEL_COUCHDB_REAL_USER:-admin}" pass="${STARINTEL_COUCHDB_REAL_PASSWORD:-admin}"
  if [ -n "${STARINTEL_COUCHDB_REAL_URL:-}" ]; then
    echo "apache-couchdb: using STARINTEL_COUCHDB_REAL_URL (not started here)"
    return 0
  fi
  local url="http://127.0.0.1:$COUCHDB_REAL_PORT"
  # a server this script started from a checkout that has since been deleted still answers, but cannot start its
  # JavaScript engine (validate_doc_update) or find its data: stopped here and started again below
  stop_orphaned_real_couchdb "$url" || true
  if curl -sf --max-time 2 "$url/_up" >/dev/null 2>&1; then
    echo "apache-couchdb: already up at $url"
  else
    # shared/couchdb (find_shared_dir: beside the checkout, its main checkout or the checkout it was cloned from)
    local dist="" candidate
    for candidate in ${STARINTEL_COUCHDB_DIST:-} ${SHARED_DIR:+"$SHARED_DIR/couchdb"}; do
      if [ -f "$candidate/start-couchdb.sh" ] && [ -f "$candidate/couchdb-3.4.3-debian12-x86_64.tar.gz" ]; then
        dist="$(cd "$candidate" && pwd)"
        break
      fi
    done
    [ -n "$dist" ] ||
      fail "apache-couchdb: no release in ../shared/couchdb (set STARINTEL_COUCHDB_DIST or STARINTEL_COUCHDB_REAL_URL)"
    echo "apache-couchdb: starting 3.4.3 on $url (log: $SERVICES_DIR/couchdb-real-data/couchdb.log)"
    COUCHDB_TARBALL="$dist/couchdb-3.4.3-debian12-x86_64.tar.gz" COUCHDB_ADMIN_USER="$user" \
      COUCHDB_ADMIN_PASS="$pass" bash "$dist/start-couchdb.sh" "$SERVICES_DIR/couchdb-real-data" \
      "$COUCHDB_REAL_PORT" "$SERVICES_DIR/couchdb-3.4.3" >/dev/null ||
      fail "apache-couchdb failed to start; read the log: $SERVICES_DIR/couchdb-real-data/couchdb.log"
  fi
  export STARINTEL_COUCHDB_REAL_URL="$url" STARINTEL_COUCHDB_REAL_USER="$user" STARINTEL_COUCHDB_REAL_PASSWORD="$pass"
}

# ---------- Chromium + ChromeDriver (the console's browser test, lease-admin-actuator ConsoleBrowserTests) ----------
# Debian's chromium and chromium-driver (same version), installed only when /usr/bin/chromium or /usr/bin/chromedriver
# is missing. Under CI=true a failed install is an error (the browser test would fail); otherwise a warning (the test
# is then reported as skipped).
ensure_chromium() {
  if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    echo "chromium: present ($(/usr/bin/chromedriver --version 2>/dev/null | head -1))"
    return 0
  fi
  echo "chromium: installing chromium chromium-driver"
  if (apt_install chromium chromium-driver) && [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    echo "chromium: installed"
    return 0
  fi
  [ "${CI:-}" = "true" ] && fail "chromium: apt-get install chromium chromium-driver failed (CI=true: the console's browser test needs it)"
  echo "WARNING: chromium: could not install chromium chromium-driver; the console's browser test will be skipped" >&2
}

ensure_redis
ensure_valkey
ensure_rabbit
ensure_couch
ensure_real_couchdb
ensure_chromium
echo "services: redis 127.0.0.1:6379, rabbitmq 127.0.0.1:5672, couchdb 127.0.0.1:5984, apache-couchdb 127.0.0.1:$COUCHDB_REAL_PORT are ready"
