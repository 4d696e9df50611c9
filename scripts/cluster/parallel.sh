#!/usr/bin/env bash
# parallel.sh N [JOBS]: the benchmark as N shards on one big machine with GNU Parallel (JOBS at a time,
# default the number of cores / 2, since each eccco process uses two), then the merge.
#   ECCCO_DATA=moons ECCCO_BENCH_ARGS="--runs 10" scripts/cluster/parallel.sh 8
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/goenv.sh
n="${1:?usage: parallel.sh N [JOBS]}"
jobs="${2:-$(( ($(nproc) + 1) / 2 ))}"
go build -o "${ECCCO_BIN:-bin/eccco}" ./eccco/cmd/eccco
parallel --halt now,fail=1 -j "$jobs" scripts/cluster/shard.sh {} "$n" ::: $(seq 1 "$n")
scripts/cluster/shard.sh 0 "$n"
