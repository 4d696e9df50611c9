#!/usr/bin/env bash
# reproduce.sh: regenerate eccco-go's results headless, on the embedded pure-Go GoMLX backend.
#
#   ./reproduce.sh           the paper's protocol: every model trained with the paper's settings
#                            (paper/model-performance.{md,csv}), then the benchmark of every generator on
#                            every available data set (50 runs of 100 factuals; 10 runs for images) with
#                            the result tables and the comparison with the published numbers in
#                            paper/results/ (many hours on 2 cores; resumable: run it again to go on)
#   ./reproduce.sh --quick   a few epochs per model and a small benchmark (2 runs of 20 factuals on the
#                            synthetic sets and German Credit), minutes; writes runs/quick/
#
# Environment:
#   ECCCO_DATA_DIR   where data sets live (default: data/cache in this repository; git ignores it)
#   ECCCO_MIRROR     a local directory holding upstream data files to copy instead of downloading
#                    (e.g. cal_housing.csv, gmsc.csv, german_credit.csv)
#   GOMLX_BACKEND    GoMLX backend (default "go"; "xla:cpu"/"xla:cuda" need a build with -tags xla)
#
# Data sets that cannot be fetched on this machine are skipped with a message that says how to get them.
set -euo pipefail
cd "$(dirname "$0")"

profile=paper
case "${1:-}" in
  --quick) profile=quick ;;
  "") ;;
  -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
  *) echo "reproduce.sh: unknown option $1 (want --quick)" >&2; exit 2 ;;
esac

mkdir -p bin
go build -o bin/eccco ./eccco/cmd/eccco
bin/eccco backend

echo "== data"
fetch_args=()
[ -n "${ECCCO_MIRROR:-}" ] && fetch_args+=(--from "$ECCCO_MIRROR")
bin/eccco data fetch all "${fetch_args[@]}" || echo "(some data sets are not available here; they are skipped below)"
bin/eccco data list

echo "== model performance (paper, Table 5)"
if [ "$profile" = quick ]; then
  bin/eccco perf --models mlp,mlp-ensemble,jem,jem-ensemble,lenet --epochs 5 --lenet-epochs 1 --out runs/quick --save-models runs/quick/models
else
  mkdir -p paper
  bin/eccco perf --models mlp,mlp-ensemble,jem,jem-ensemble,lenet --out runs/perf --save-models runs/models
  cp runs/perf/perf.md paper/model-performance.md
  cp runs/perf/perf.csv paper/model-performance.csv
  cp runs/perf/perf.tex paper/model-performance.tex
fi

echo "== counterfactual benchmark (paper, Tables 1-2 and the appendix tables)"
if [ "$profile" = quick ]; then
  rm -rf runs/quick/bench   # minutes of work: start clean rather than resume under older settings
  bin/eccco bench --data linearly-separable,moons,circles,german-credit --skip-missing --runs 2 --factuals 20 --compat \
    --models-dir runs/quick/models --out runs/quick/bench
else
  bin/eccco bench --data all --compat --models-dir runs/models --out runs/bench
  mkdir -p paper/results
  cp runs/bench/tables/* paper/results/
fi
