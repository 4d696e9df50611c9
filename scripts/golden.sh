#!/usr/bin/env bash
# golden.sh: the outputs a refactoring must leave byte for byte as they were, written to one folder, so
# that two commits can be compared with diff -r.
#
# Usage: scripts/golden.sh OUT            write the outputs of this checkout's code to OUT (a new folder)
#        scripts/golden.sh --diff A B     compare two such folders; exit status 1 when a file differs
#
# What OUT holds (every part deterministic; about 15 min on a 2-core machine):
#   perf/       Table 5's rows of 5-epoch models on the three synthetic sets (the quick profile's)
#   bench/      the benchmark in the authors'-code mode: the three synthetic sets on those models and the
#               three tabular sets on the authors' models, every generator, 1 run of 10 factuals; its
#               units, results.csv and tables
#   bench-paper/  moons in the paper's equations, 1 run of 10 factuals
#   tables-*/   every committed table set (paper/results*) re-rendered from its cells
#   report/     the report written from the committed results (LaTeX and Markdown; no PDF)
#   figures/    the synthetic gallery figures (PNG, SVG, PDF, criteria) from 5-epoch models
#   explain-*.txt  eccco explain on a paper data set, eccco explain-onnx on examples/onnx-credit (its CSV beside)
# Files that record times (timings, stage times, manifests' clocks) are left out of the comparison.
#
# Environment: ECCCO_DATA_DIR (default data/cache), ECCCO_MIRROR (copied instead of downloading), ECCCO_BIN.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/goenv.sh

if [ "${1:-}" = --diff ]; then
  [ $# -eq 3 ] || { echo "usage: scripts/golden.sh --diff A B" >&2; exit 2; }
  # Timing records differ from run to run by design; everything else must not.
  if diff -r -q -x 'timings*' -x 'stages.tsv' -x '*.log' -x 'manifest.json' "$2" "$3"; then
    echo "golden: $2 and $3 are byte for byte the same ($(find "$2" -type f | wc -l) files)"
  else
    echo "golden: $2 and $3 differ (above)" >&2
    exit 1
  fi
  exit 0
fi
[ $# -eq 1 ] || { echo "usage: scripts/golden.sh OUT | --diff A B" >&2; exit 2; }
out="$1"
if [ -e "$out" ]; then echo "golden: $out exists; give a new folder" >&2; exit 2; fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
export ECCCO_DATA_DIR="${ECCCO_DATA_DIR:-$PWD/data/cache}"
export ECCCO_PROGRESS=0 ECCCO_TEST_CLOCK=frozen
eccco="${ECCCO_BIN:-bin/eccco}"
go build -trimpath -o "$eccco" ./eccco/cmd/eccco
fetch=()
[ -n "${ECCCO_MIRROR:-}" ] && fetch=(--from "$ECCCO_MIRROR")
"$eccco" data fetch all "${fetch[@]}" >/dev/null 2>&1 || true

models="$out/.models"
synthetic=linearly-separable,moons,circles
tabular=california-housing,gmsc,german-credit
step() { echo "golden: $*"; }

step perf
"$eccco" perf --data "$synthetic" --models mlp,mlp-ensemble,jem,jem-ensemble --mode authors-code \
  --set epochs=5 --models-dir "$models" --out "$out/perf" >"$out/perf.txt"
step bench authors-code
"$eccco" bench --data "$synthetic,$tabular" --skip-missing --runs 1 --factuals 10 --mode authors-code \
  --set epochs=5 --models-dir "$models" --out "$out/bench" >"$out/bench.txt"
step bench paper
"$eccco" bench --data moons --runs 1 --factuals 10 --mode paper --set epochs=5 --models-dir "$models" \
  --out "$out/bench-paper" >"$out/bench-paper.txt"
for set in paper/results paper/results-paper-mode paper/results-replay-only paper/results-seed43; do
  step tables "$set"
  name="tables-$(basename "$set")"
  mkdir -p "$out/$name"
  cp "$set/cells.csv" "$out/$name/"
  [ -f "$set/run-means.csv.gz" ] && cp "$set/run-means.csv.gz" "$out/$name/"
  [ -f "$set/comparison.md" ] && cp "$set/comparison.md" "$out/$name/"
  "$eccco" tables --in "$out/$name" --replace >"$out/$name.txt"
done
step report
"$eccco" report --out "$out/report" --markdown "$out/report/eccco-go.md" --pdf "" >"$out/report.txt"
step figures
"$eccco" figures --only fig2-poc,fig2-poc-authors,poc-gen,cp-diff --mode paper --set epochs=5 --models-dir "$models" --out "$out/figures" \
  >"$out/figures.txt"
step explain
"$eccco" explain --data moons --model mlp --generator ECCCo,Wachter,REVISE --n 5 --mode authors-code \
  --set epochs=5 --models-dir "$models" >"$out/explain-moons.txt"
"$eccco" explain --data german-credit --model mlp --generator ECCCo,ECCCo+ --n 5 --mode authors-code \
  --models-dir "$models" >"$out/explain-german-credit.txt"
ex=examples/onnx-credit
"$eccco" explain-onnx --model "$ex/credit.onnx" --data "$ex/credit.csv" --schema "$ex/schema.json" \
  --generator ECCCo,Wachter,REVISE --rows 0-4 --out "$out/explain-onnx.csv" >"$out/explain-onnx.txt"
rm -rf "$models"
echo "golden: wrote $out ($(find "$out" -type f | wc -l) files)"
