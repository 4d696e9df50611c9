#!/usr/bin/env bash
# shard.sh K N: run shard K of N of the benchmark into $ECCCO_OUT/shard-K; K = 0 (or ECCCO_MERGE=1) merges
# the N shard directories into $ECCCO_OUT/bench and writes results.csv and the tables. Used by the Slurm
# array (bench-array.sbatch), by GNU Parallel (parallel.sh) and by the local test (local-array.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/goenv.sh
k="$1" n="$2"
bin="${ECCCO_BIN:-bin/eccco}"
out="${ECCCO_OUT:-runs/cluster}"
args=(--data "${ECCCO_DATA:-all}" --mode "${ECCCO_MODE:-authors-code}")
# shellcheck disable=SC2206 # ECCCO_BENCH_ARGS is a list of flags by design
[ -n "${ECCCO_BENCH_ARGS:-}" ] && args+=(${ECCCO_BENCH_ARGS})
[ -x "$bin" ] || go build -o "$bin" ./eccco/cmd/eccco
if [ "$k" = 0 ] || [ "${ECCCO_MERGE:-0}" = 1 ]; then
  shards=()
  for i in $(seq 1 "$n"); do shards+=("$out/shard-$i"); done
  exec "$bin" bench "${args[@]}" --merge "$(IFS=,; echo "${shards[*]}")" --out "$out/bench"
fi
exec "$bin" bench "${args[@]}" --shard "$k/$n" --out "$out/shard-$k"
