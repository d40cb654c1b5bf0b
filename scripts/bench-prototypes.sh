#!/usr/bin/env bash
# Measures what the store's in-script writes cost, against the bare reference, with the interleaved harness
# (scripts/bench.sh --interleaved, libraries reference,store, all four cells). Two prototype variants of lease.lua
# are derived from the current file by deleting commands (neither keeps the contract; they are ceilings, never a
# store anyone should run):
#   p1  no SET lid at acquire, no PEXPIRE hist and no ZREM idx:expiry at release (3 of 18 nested commands)
#   p2  p1, and no index upkeep or lease-id evidence at all: no ZADD idx:program / idx:expiry at acquire, no SET lid
#       and no ZREM idx:program at release (7 of 18)
# Runs base, p1, p2 in turn, ROUNDS times (default 3; ~2.5 min per run), each in its own bench.sh run (each with its
# own private servers), and prints the median ratio per cell and variant. Extra arguments go to bench.sh.
#   bash scripts/bench-prototypes.sh
#   ROUNDS=1 bash scripts/bench-prototypes.sh -Dbench.threads=1 -Dbench.keys=distinct
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS="${ROUNDS:-3}"
LUA=lease-redis/src/main/resources/io/starintel/lease/store/redis/lease.lua
WORK="$PWD/lease-benchmarks/target/prototypes"
INDEX="$WORK/runs.txt"
rm -rf "$WORK"
mkdir -p "$WORK/p1/io/starintel/lease/store/redis" "$WORK/p2/io/starintel/lease/store/redis"

# deletes the lines exactly equal to the given ones from $LUA into $1; fails when one is missing (the file changed)
derive() {
  local out="$1"; shift
  python3 - "$LUA" "$out" "$@" <<'PY'
import sys
source, out, lines = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(source).read().split('\n')
for line in lines:
    if text.count(line) != 1:
        sys.exit('bench-prototypes: expected exactly one line ' + repr(line) + ' in ' + source)
    text.remove(line)
open(out, 'w').write('\n'.join(text))
PY
}
P1=("  r_call('SET', keys[4], digest, 'PX', physical)"
    "  r_call('PEXPIRE', hist, p.history_ms_text)"
    "  r_call('ZREM', expiry, digest)")
P2=("${P1[@]}"
    "  r_call('ZADD', keys[5], '0', digest)"
    "  r_call('ZADD', keys[6], expires_text, digest)"
    "  r_call('SET', lid, digest .. SEP .. state, 'PX', p.retention_text)"
    "  r_call('ZREM', program, digest)")
derive "$WORK/p1/io/starintel/lease/store/redis/lease.lua" "${P1[@]}"
derive "$WORK/p2/io/starintel/lease/store/redis/lease.lua" "${P2[@]}"

for round in $(seq 1 "$ROUNDS"); do
  for variant in base p1 p2; do
    prefix=""
    if [ "$variant" != base ]; then prefix="$WORK/$variant"; fi
    log="$WORK/$variant-$round.log"
    BENCH_CLASSPATH_PREFIX="$prefix" bash scripts/bench.sh --interleaved -Dbench.libraries=reference,store "$@" \
      > "$log" 2>&1 || { tail -20 "$log"; exit 1; }
    echo "$variant $(sed -n 's/^results: \([^ ]*\).*/\1/p' "$log")" >> "$INDEX"
  done
done

# median per cell and variant of the runs' median per-round ratios (each run's "Median per-round ratio" table)
python3 - "$INDEX" <<'PY'
import collections, statistics, sys
ratios = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    variant, run = line.split()
    summary = open(run + '/interleaved.md').read().split('Median per-round ratio')[1]
    for row in summary.splitlines():
        cells = [c.strip() for c in row.strip('|').split('|')]
        if len(cells) == 2 and 'thread' in cells[0]:
            ratios[cells[0]][variant].append(float(cells[1]))
print('| cell | ' + ' | '.join(['base', 'p1', 'p2']) + ' |')
print('|---|---:|---:|---:|')
for cell, by in ratios.items():
    print('| ' + cell + ' | ' + ' | '.join('%.2f (%s)' % (statistics.median(by[v]), ' / '.join('%.2f' % r for r in by[v]))
                                           for v in ['base', 'p1', 'p2']) + ' |')
PY
