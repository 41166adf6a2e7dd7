#!/usr/bin/env bash
# Run .ci/run from fresh clones of HEAD, RUNS times in a row, beside LOOPS_PER_CORE busy-loop
# processes per core (issue 11: the suite must pass with the cores oversubscribed). Stops at the
# first failing run. Logs and a one-line summary per run go to OUT.
#
#   bash scripts/ci_under_load.sh [RUNS=3] [LOOPS_PER_CORE=4] [OUT=/tmp/cvcheck-ci-load]
set -u
runs=${1:-3}; per_core=${2:-4}; out=${3:-/tmp/cvcheck-ci-load}
src=$(cd "$(dirname "$0")/.." && pwd); commit=$(git -C "$src" rev-parse HEAD)
mkdir -p "$out"
loops=()
for _ in $(seq $(( per_core * $(nproc) ))); do ( while :; do :; done ) & loops+=($!); done
trap 'kill "${loops[@]}" 2>/dev/null' EXIT
echo "commit $commit, $(nproc) cores, ${#loops[@]} busy loops, $(date -u +%FT%TZ)"
for n in $(seq "$runs"); do
    clone="$out/clone$n"; rm -rf "$clone"
    git clone -q "$src" "$clone" && git -C "$clone" checkout -q "$commit"
    t0=$(date +%s)
    ( cd "$clone" && bash .ci/run ) > "$out/run$n.log" 2>&1; rc=$?
    echo "run $n: exit $rc, $(( $(date +%s) - t0 )) s, load $(cut -d' ' -f1-3 /proc/loadavg): $(tail -1 "$out/run$n.log")"
    [ "$rc" -eq 0 ] || exit "$rc"
done
