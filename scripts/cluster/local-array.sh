#!/usr/bin/env bash
# local-array.sh N: the Slurm array's shards as local background processes (SLURM_ARRAY_TASK_ID set as Slurm
# would), then the merge job; then the same protocol as one run; the merged results.csv and tables must
# equal the single run's byte for byte. A small protocol by default (ECCCO_DATA=linearly-separable,
# ECCCO_BENCH_ARGS="--runs 3 --factuals 10 --models mlp,jem --set epochs=3").
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/goenv.sh
n="${1:-3}"
export ECCCO_DATA="${ECCCO_DATA:-linearly-separable}"
export ECCCO_BENCH_ARGS="${ECCCO_BENCH_ARGS:---runs 3 --factuals 10 --models mlp,jem --set epochs=3}"
export ECCCO_OUT="${ECCCO_OUT:-$(mktemp -d)}" ECCCO_PROGRESS=0
export ECCCO_BENCH_ARGS="$ECCCO_BENCH_ARGS --models-dir $ECCCO_OUT/models"
go build -o "${ECCCO_BIN:-bin/eccco}" ./eccco/cmd/eccco
# Models first (as on a cluster: trained once, loaded by every task), so tasks do not race to train them.
"${ECCCO_BIN:-bin/eccco}" bench --data "$ECCCO_DATA" --mode "${ECCCO_MODE:-authors-code}" $ECCCO_BENCH_ARGS --runs 1 --factuals 1 --out "$ECCCO_OUT/warm" >/dev/null
pids=()
for k in $(seq 1 "$n"); do
  SLURM_ARRAY_TASK_ID="$k" SLURM_ARRAY_TASK_COUNT="$n" bash scripts/cluster/bench-array.sbatch > "$ECCCO_OUT/task-$k.log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
ECCCO_MERGE=1 ECCCO_SHARDS="$n" bash scripts/cluster/bench-array.sbatch > "$ECCCO_OUT/merge.log" 2>&1
ECCCO_OUT="$ECCCO_OUT/single" scripts/cluster/shard.sh 1 1 > "$ECCCO_OUT/single.log" 2>&1 # the whole protocol
status=0
for f in results.csv tables/cells.csv "tables/table-$ECCCO_DATA.md"; do
  if cmp -s "$ECCCO_OUT/bench/$f" "$ECCCO_OUT/single/shard-1/$f"; then echo "identical: $f"; else echo "DIFFERS: $f"; status=1; fi
done
exit $status
