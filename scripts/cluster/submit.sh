#!/usr/bin/env bash
# submit.sh [N [SBATCH-ARGS...]]: submit the benchmark to Slurm as bench-array.sbatch describes: an array of
# N shards (default 32), then the merge job, which starts only when every shard has succeeded (afterok).
# SBATCH-ARGS go to both submissions (e.g. --partition=cpu --account=me); the ECCCO_* variables of
# bench-array.sbatch are passed on from this environment.
#   ECCCO_DATA=moons ECCCO_BENCH_ARGS="--runs 10" scripts/cluster/submit.sh 8 --partition=short
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-32}"
[ "$#" -gt 0 ] && shift
case "$n" in '' | *[!0-9]* | 0) echo "submit.sh: N must be a positive number of shards, not '$n'" >&2; exit 2 ;; esac
command -v sbatch >/dev/null || { echo "submit.sh: sbatch not found (run on a Slurm login node)" >&2; exit 1; }
mkdir -p runs/cluster # the jobs' --output files go there
# --parsable prints "JOBID" or "JOBID;CLUSTER".
array="$(sbatch --parsable --array="1-$n" "$@" scripts/cluster/bench-array.sbatch)"
array="${array%%;*}"
merge="$(sbatch --parsable --dependency="afterok:$array" --export="ALL,ECCCO_MERGE=1,ECCCO_SHARDS=$n" "$@" \
  scripts/cluster/bench-array.sbatch)"
merge="${merge%%;*}"
echo "submitted: array job $array ($n shards into ${ECCCO_OUT:-runs/cluster}/shard-K), merge job $merge (into ${ECCCO_OUT:-runs/cluster}/bench)"
