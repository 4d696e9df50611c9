#!/usr/bin/env bash
# reproduce.sh: regenerate eccco-go's results headless, on the embedded pure-Go GoMLX backend.
#
# Usage: ./reproduce.sh [--quick] [--mode authors-code|paper] [--help]
#
#   ./reproduce.sh           the paper's protocol in the authors'-code mode (what the published numbers were
#                            computed with): every model trained with the paper's settings and scored
#                            (paper/model-performance.{md,csv,tex}: Table 5), then the benchmark of every
#                            generator on every available data set (50 runs of 100 factuals; 10 runs for
#                            images) with the result tables and the comparison with the published numbers
#                            in paper/results/, and every figure of the paper (figures/: PNG, SVG, PDF).
#                            Many hours on 2 cores; resumable: run it again and it goes
#                            on where it stopped (saved models are reused, finished units skipped).
#   ./reproduce.sh --quick   the same pipeline in minutes, written to runs/quick/ (nothing under paper/ is
#                            touched): 5-epoch models on the three synthetic sets, scored and
#                            used by a small benchmark (2 runs of 20 factuals), and every figure from
#                            5-epoch models (LeNet-5: 1 epoch) into figures/, then the notebooks executed
#                            headless (HTML copies in runs/notebooks/html/; skipped where notebooks/setup.sh
#                            cannot install JupyterLab). Every model it trains is used; a smoke profile.
#   --mode paper             run the paper's equations instead of the authors' code (results then go to
#                            runs/paper-mode/, never over the committed authors'-code results).
#
# Environment:
#   ECCCO_DATA_DIR   where data sets live (default: data/cache in this repository; git ignores it)
#   ECCCO_MIRROR     a local directory holding upstream data files to copy instead of downloading
#                    (e.g. cal_housing.csv, gmsc.csv, german_credit.csv)
#   GOMLX_BACKEND    GoMLX backend (default "go"; "xla:cpu"/"xla:cuda" need a build with -tags xla)
#   ECCCO_PROGRESS   "lines" for plain progress lines, "0" for none (default: a live bar on a terminal)
#
# Models are saved under runs/models/MODE/seed-42/DATA/KIND (quick: runs/quick/models/…), where
# `eccco explain`, `eccco sample` and `eccco bench` find them. Data sets that cannot be fetched on this
# machine are skipped with a message that says how to get them.
set -euo pipefail
cd "$(dirname "$0")"

profile=paper
mode=authors-code
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) profile=quick ;;
    --mode) shift; mode="${1:-}" ;;
    --mode=*) mode="${1#--mode=}" ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "reproduce.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case "$mode" in
  authors-code|paper) ;;
  *) echo "reproduce.sh: --mode must be authors-code or paper, not '$mode'" >&2; exit 2 ;;
esac

notebooks_step() {
  echo "== notebooks: executed headless with the quick settings (HTML copies in runs/notebooks/html/)"
  if notebooks/setup.sh >/dev/null 2>&1; then
    ECCCO_NOTEBOOKS=1 go test ./notebooks -count=1 -run TestNotebooks -timeout 120m
  else
    echo "(notebooks skipped: their tool chain could not be installed here; see notebooks/README.md)"
  fi
}

mkdir -p bin
go build -o bin/eccco ./eccco/cmd/eccco
bin/eccco backend

echo "== data"
fetch_args=()
[ -n "${ECCCO_MIRROR:-}" ] && fetch_args+=(--from "$ECCCO_MIRROR")
bin/eccco data fetch all "${fetch_args[@]}" || echo "(some data sets are not available here; they are skipped below)"
bin/eccco data list

if [ "$profile" = quick ]; then
  out=runs/quick
  [ "$mode" = paper ] && out=runs/quick-paper-mode
  common=(--mode "$mode" --epochs 5 --models-dir "$out/models")
  # German Credit is left out: in the authors'-code mode its models are fitted on a class-sorted half of the
  # data, and 5-epoch models predict a single class, so no factual of the other one can be drawn (the
  # authors' benchmark stops there too).
  sets=linearly-separable,moons,circles
  echo "== model performance (quick: 5 epochs)"
  bin/eccco perf --data "$sets" --skip-missing --models mlp,mlp-ensemble,jem,jem-ensemble "${common[@]}" --out "$out/perf"
  echo "== counterfactual benchmark (quick: 2 runs of 20 factuals)"
  bin/eccco bench --data "$sets" --skip-missing --runs 2 --factuals 20 "${common[@]}" --out "$out/bench"
  echo "== figures (quick: 5-epoch models, LeNet-5 1 epoch)"
  bin/eccco figures --mode paper --epochs 5 --lenet-epochs 1 --models-dir "$out/models" --results "$out/bench" --out figures
  notebooks_step
  echo "quick results: $out/perf/perf.md, $out/bench/tables/, $out/bench/tables/comparison.md, figures/ (from quick models)"
  exit 0
fi

if [ "$mode" = authors-code ]; then
  perf_out=runs/perf bench_out=runs/bench publish=yes
else
  perf_out=runs/paper-mode/perf bench_out=runs/paper-mode/bench publish=no
fi
echo "== model performance (paper, Table 5)"
bin/eccco perf --data all --models mlp,mlp-ensemble,jem,jem-ensemble,lenet --mode "$mode" --out "$perf_out"
echo "== counterfactual benchmark (paper, Tables 1-2 and the appendix tables)"
bin/eccco bench --data all --mode "$mode" --out "$bench_out"
echo "== figures"
bin/eccco figures --mode paper --results "$bench_out" --out figures   # the paper's concepts, in its equations
notebooks_step
if [ "$publish" = yes ]; then
  mkdir -p paper/results
  for f in perf.md perf.csv perf.tex; do cp "$perf_out/$f" "paper/model-performance.${f#perf.}"; done
  cp "$bench_out"/tables/* paper/results/
  echo "results: paper/model-performance.md, paper/results/ (comparison.md: against the published numbers)"
else
  echo "results: $perf_out/perf.md, $bench_out/tables/"
fi
