#!/usr/bin/env bash
# What single contract rules cost in storage v3's renewal, measured with the renewal harness (scripts/bench.sh
# --renewal: leases held through @TargetLeased and renewed by the starter, Redis CPU per lease renewal). Prototype
# variants of lease.lua are derived from the current file by replacing exact lines (none keeps the contract; they are
# ceilings, never a store anyone should run):
#   r1  a renewal stores no idempotency result (contract: "the first attempt atomically stores its typed result with
#       the mutation"; a retried renewal would renew again)
#   r2  r1, and a renewal leaves the expiry index alone (the sweeper and the active-lease limit read a stale expiry)
# Runs base, r1, r2 in turn, ROUNDS times (default 2), each in its own bench.sh run with its own private server, and
# prints Redis CPU and commands per renewal per variant. Extra arguments go to bench.sh (defaults: 100,000 leases,
# 60 s held).
#   bash scripts/bench-prototypes.sh
#   ROUNDS=1 bash scripts/bench-prototypes.sh -Dbench.leases=20000
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS="${ROUNDS:-2}"
LUA=lease-redis/src/main/resources/io/starintel/lease/store/redis/lease.lua
WORK="$PWD/lease-benchmarks/target/prototypes"
INDEX="$WORK/runs.txt"
rm -rf "$WORK"
mkdir -p "$WORK/r1/io/starintel/lease/store/redis" "$WORK/r2/io/starintel/lease/store/redis"

# replaces each given line (exactly one occurrence in $LUA) by its replacement into $1: arguments come in pairs
derive() {
  local out="$1"; shift
  python3 - "$LUA" "$out" "$@" <<'PY'
import sys
source, out, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(source).read().split('\n')
for old, new in zip(pairs[0::2], pairs[1::2]):
    if text.count(old) != 1:
        sys.exit('bench-prototypes: expected exactly one line ' + repr(old) + ' in ' + source)
    text[text.index(old)] = new
open(out, 'w').write('\n'.join(text))
PY
}
CLAIM="  local stored = claim(idem, result_text('-', request_digest, 'lease_renewed', fmt(now), '',"
NO_CLAIM="  local stored = false and claim(idem, result_text('-', request_digest, 'lease_renewed', fmt(now), '',"
ZADD="  r_call('ZADD', expiry, fmt(r.expires), digest)"
R1=("$CLAIM" "$NO_CLAIM")
R2=("${R1[@]}" "$ZADD" "  -- (r2: no expiry index upkeep)")
derive "$WORK/r1/io/starintel/lease/store/redis/lease.lua" "${R1[@]}"
derive "$WORK/r2/io/starintel/lease/store/redis/lease.lua" "${R2[@]}"

for round in $(seq 1 "$ROUNDS"); do
  for variant in base r1 r2; do
    prefix=""
    if [ "$variant" != base ]; then prefix="$WORK/$variant"; fi
    log="$WORK/$variant-$round.log"
    BENCH_CLASSPATH_PREFIX="$prefix" bash scripts/bench.sh --renewal -Dbench.seconds=60 "$@" \
      > "$log" 2>&1 || { tail -20 "$log"; exit 1; }
    echo "$variant $(sed -n 's/^results: \([^ ]*\).*/\1/p' "$log")" >> "$INDEX"
  done
done

# Redis CPU and commands per renewal, and losses, per variant and round (from each run's renewal.md)
python3 - "$INDEX" <<'PY'
import collections, re, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    variant, run = line.split()
    report = open(run + '/renewal.md').read()
    cpu = float(re.search(r'([0-9.]+) µs per lease renewal', report).group(1))
    commands = float(re.search(r'commands, ([0-9.]+) per renewal', report).group(1))
    lost = re.search(r'lost ([0-9,]+)', report).group(1)
    rows[variant].append((cpu, commands, lost))
print('| variant | Redis CPU per renewal (µs, median; runs) | commands per renewal | lost |')
print('|---|---:|---:|---:|')
for variant in ['base', 'r1', 'r2']:
    runs = rows[variant]
    print('| %s | %.1f (%s) | %s | %s |' % (variant, statistics.median(r[0] for r in runs),
          ' / '.join('%.1f' % r[0] for r in runs), ' / '.join('%.2f' % r[1] for r in runs),
          ' / '.join(r[2] for r in runs)))
PY
