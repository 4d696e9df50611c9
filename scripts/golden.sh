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
#   report/, eccco-go.md  the report written from the committed results (LaTeX sources and Markdown, laid
#               out as paper/report and paper/eccco-go.md; no PDF)
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
  # Byte for byte, except that a text file may name its own folder and the commit that made it (each
  # folder's .head): those are read as OUT and COMMIT on both sides. Timing records differ by design.
  exec python3 - "$2" "$3" <<'PY'
import os, sys
a, b = sys.argv[1:]
skip = ("timings", "stages.tsv", "manifest.json")
def files(root):
    out = set()
    for d, _, fs in os.walk(root):
        for f in fs:
            if f == ".head" or f.startswith(skip) or f.endswith(".log"):
                continue
            out.add(os.path.relpath(os.path.join(d, f), root))
    return out
def norm(root, data):
    head = open(os.path.join(root, ".head"), "rb").read().strip()
    return data.replace(os.path.abspath(root).encode(), b"OUT").replace(head[:12], b"COMMIT")
fa, fb = files(a), files(b)
bad = [f"only in {a}: {f}" for f in sorted(fa - fb)] + [f"only in {b}: {f}" for f in sorted(fb - fa)]
for f in sorted(fa & fb):
    x, y = (open(os.path.join(r, f), "rb").read() for r in (a, b))
    if x != y and norm(a, x) != norm(b, y):
        bad.append(f"differ: {f}")
for line in bad:
    print(line)
if bad:
    sys.exit(f"golden: {a} and {b} differ in {len(bad)} files (above)")
print(f"golden: {a} and {b} are the same in all {len(fa)} files (paths and commit read as OUT and COMMIT)")
PY
fi
[ $# -eq 1 ] || { echo "usage: scripts/golden.sh OUT | --diff A B" >&2; exit 2; }
out="$1"
if [ -e "$out" ]; then echo "golden: $out exists; give a new folder" >&2; exit 2; fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
git rev-parse HEAD >"$out/.head"
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
  for f in run-means.csv.gz calibration.csv comparison.md; do
    if [ -f "$set/$f" ]; then cp "$set/$f" "$out/$name/"; fi
  done
  "$eccco" tables --in "$out/$name" --replace >"$out/$name.txt"
done
step report
# As paper/ lays it out (the Markdown beside report/), so that it can be held against the committed one.
"$eccco" report --out "$out/report" --markdown "$out/eccco-go.md" --pdf "" >"$out/report.txt"
step figures
"$eccco" figures --only fig2-poc,fig2-poc-authors,poc-gen,cp-diff --mode paper --set epochs=5 --models-dir "$models" --out "$out/figures" \
  >"$out/figures.log"   # it prints each figure's drawing time
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
