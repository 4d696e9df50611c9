#!/usr/bin/env bash
# reproduce.sh: regenerate eccco-go's results headless, on the embedded pure-Go GoMLX backend, ending in
# the reproduction report (paper/eccco-go.pdf).
#
# Usage: ./reproduce.sh [--quick] [--mode authors-code|paper] [--help]
#
#   ./reproduce.sh           the paper's protocol in the authors'-code mode (what the published numbers were
#                            computed with): every model trained with the paper's settings and scored
#                            (paper/model-performance.{md,csv,tex}: Table 5), then the benchmark of every
#                            generator on every available data set (50 runs of 100 factuals; 10 runs for
#                            images) with the result tables and the comparison with the published numbers
#                            in paper/results/, every figure of the paper (figures/: PNG, SVG, PDF), the
#                            notebooks with their full settings (executed copies in paper/notebooks/), and the report: its LaTeX sources in paper/report/ (with the
#                            committed 100-DPI figures of figures/gallery/), paper/eccco-go.md and
#                            paper/eccco-go.pdf. On a 2-core machine (AVX-512) from a fresh clone, with XLA for the
#                            image sets (its plugin installed by this script where it can) and the defaults,
#                            the whole protocol took 56 min at ef6ee1f, 35 min of it the benchmark (the
#                            image sets 26; the six synthetic and tabular sets on pure Go with SIMD 10);
#                            bench/README.md gives the stages.
#   ./reproduce.sh --quick   the same pipeline in minutes, written to runs/quick/ (nothing under paper/ is
#                            touched but the PDF): 5-epoch models on the three synthetic sets, scored and
#                            used by a small benchmark (2 runs of 20 factuals), and every figure from
#                            5-epoch models (LeNet-5: 1 epoch) into figures/, then the notebooks executed
#                            headless (HTML copies in runs/notebooks/html/; skipped where notebooks/setup.sh
#                            cannot install JupyterLab), then the report, labelled QUICK PROFILE, with its
#                            sources and PDF in runs/quick/report/ (never over the full profile's paper/eccco-go.pdf).
#                            Every model it trains is used; a smoke profile.
#   --mode paper             run the paper's equations instead of the authors' code (results then go to
#                            runs/paper-mode/ and the report to runs/paper-mode/report/, never over the
#                            committed authors'-code results).
#
# Stages: data, perf, bench, figures, notebooks, report, run by `eccco reproduce` (go doc ./eccco/reproduce),
# which this script calls after installing what is missing (XLA's plugin for the full profile) and
# building bin/eccco. Each stage prints a line when it starts; the long ones print progress lines with an
# ETA (a live bar on a terminal; ECCCO_PROGRESS=lines for plain lines). The run's outcome is OUT/summary.json
# (OUT: runs/quick, or runs for the full profile): each stage's name, status (ok, skipped or failed) and a
# note (e.g. "data sets mnist skipped: not available", "up to date", "no TeX: sources only"), wall and CPU
# seconds and outputs, and the run's status (failed where a stage failed or the run did not finish, else
# ok); whatever reads a run's outcome reads it there. OUT/stages.tsv (tab-separated stage, wall seconds,
# status, CPU seconds) is what the report's provenance appendix shows; the run ends with a table of the
# stages (status, time, outputs) and the path of the PDF. A run interrupted (Ctrl-C, kill, a failed stage)
# and started again adds the new invocation's times to the recorded ones, so the times are those of making
# the outputs across the resume.
#
# Resumable: run it again and it does no finished work again. Saved models are reused, finished benchmark
# units skipped; figures and notebooks are skipped while a stamp file (OUT/.figures.stamp,
# OUT/.notebooks.stamp) matches their inputs (the eccco binary, the models, the benchmark results, the
# notebooks, the data sets present), and a figures stage killed half-way draws again only the figures
# without a record of the same inputs (OUT/.figures.records/); the report is rebuilt (seconds). Without TeX the report stage writes
# the LaTeX sources and Markdown, says SKIP for the PDF with how to install TeX
# (scripts/texlive-packages.txt), keeps an earlier PDF compiled from the same content (its content key:
# the same results, prose and figures; a fresh clone's committed PDF when the results come back as
# committed) and removes one of other content, and the script still succeeds. One run per
# output folder at a time (a lock, OUT/.reproduce.lock); the PDF's dates are fixed, so that the same
# results give the same bytes.
#
# Environment:
#   ECCCO_DATA_DIR   where data sets live (default: data/cache in this repository; git ignores it)
#   ECCCO_MIRROR     a local directory holding upstream data files to copy instead of downloading
#                    (e.g. cal_housing.csv, gmsc.csv, german_credit.csv)
#   GOMLX_BACKEND    GoMLX backend (default "go"; "xla:cpu"/"xla:cuda" need a build with -tags xla)
#   ECCCO_IMAGE_BACKEND  backend of MNIST and Fashion-MNIST in the full profile: auto (default: xla:cpu when
#                    cgo works and XLA's pinned plugin is installed, by scripts/install-xla.sh, which this
#                    script runs when the plugin is missing; else as GOMLX_BACKEND, said in one line), go, or a
#                    configuration such as xla:cpu
#   ECCCO_XLA_INSTALL  0: never run scripts/install-xla.sh (the image sets then use XLA only if its plugin
#                    is already there)
#   ECCCO_TABULAR_BACKEND  backend of the benchmark of the six synthetic and tabular sets in the full profile:
#                    unset or go (default: as GOMLX_BACKEND; on pure Go the committed results byte for byte),
#                    auto (xla:cpu when available, as above), or a configuration such as xla:cpu. On XLA
#                    their benchmark takes about a fifth of pure Go's time and agrees with it to 10⁻³ in
#                    almost every counterfactual (README, Speed); their models are trained as before
#   ECCCO_JOBS       how many data sets the perf and bench stages run at once, each in its own lane (default:
#                    2 where there are 2 or more CPUs, else 1; more lanes want more cores and memory: 3.4 GB
#                    at the peak with both image sets in flight). Every result is the same bytes whatever the
#                    number; on 2 cores one data set leaves a core partly idle, and 2 lanes cut the
#                    protocol's time by about a quarter (bench/README.md)
#   ECCCO_PROGRESS   "lines" for plain progress lines, "0" for none (default: a live bar on a terminal)
#   ECCCO_BIN        where to build the eccco binary (default bin/eccco)
#
# Models are saved under runs/models/MODE/seed-42/DATA/KIND (quick: runs/quick/models/…), where
# `eccco explain`, `eccco sample` and `eccco bench` find them. Data sets that cannot be fetched on this
# machine are skipped with a message that says how to get them.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/goenv.sh

# eccco reproduce parses and checks the arguments; here only --help, and --quick (which stays off XLA).
quick=no
for a in "$@"; do
  case "$a" in
    -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    --quick) quick=yes ;;
  esac
done
eccco="${ECCCO_BIN:-bin/eccco}"
mkdir -p "$(dirname "$eccco")"

# build [TAGS]: builds eccco into a new file and moves it into place, so that a run still going (which
# holds the output folder's lock) keeps its own binary. -trimpath: the binary holds no path of this
# checkout, so two clones of one commit build the same bytes, and the stamps, which fingerprint it, agree.
build() {
  local tmp="$eccco.tmp.$$"
  if [ -n "${1:-}" ]; then CGO_ENABLED=1 go build -trimpath -tags "$1" -o "$tmp" ./eccco/cmd/eccco
  else go build -trimpath -o "$tmp" ./eccco/cmd/eccco; fi || { rm -f "$tmp"; return 1; }
  mv -f "$tmp" "$eccco"
}

# The image data sets (MNIST, Fashion-MNIST) train and run several times faster on XLA's CPU plugin than on
# the pure-Go backend (go doc ./eccco/backend). With ECCCO_IMAGE_BACKEND unset or "auto" (and likewise
# ECCCO_TABULAR_BACKEND=auto), the full profile runs them on XLA when GOMLX_BACKEND is not set, a C compiler
# is there (cgo), the pinned plugin is installed — scripts/install-xla.sh installs it into .xla/ here when
# it is missing: from PyPI, sha256-checked, once per checkout, never while eccco runs; ECCCO_XLA_INSTALL=0
# skips that — and eccco builds with -tags xla; otherwise it says why in one line and everything runs on
# pure Go. Any other value (e.g. xla:cpu) is passed on and must work. The quick profile stays on pure Go.
xla_plugin="${ECCCO_XLA_DIR:-.xla}/pjrt_c_api_cpu_plugin.so"
image="${ECCCO_IMAGE_BACKEND:-auto}" tabular="${ECCCO_TABULAR_BACKEND:-go}"
xla_auto() {
  if ! command -v "${CC:-gcc}" >/dev/null 2>&1 && ! command -v cc >/dev/null 2>&1; then
    echo "XLA: no C compiler for cgo (-tags xla): everything on pure Go"; return 1
  fi
  if [ ! -f "$xla_plugin" ]; then
    if [ "${ECCCO_XLA_INSTALL:-1}" = 0 ]; then
      echo "XLA: its plugin is not installed (ECCCO_XLA_INSTALL=0; scripts/install-xla.sh installs it): everything on pure Go"; return 1
    fi
    echo "XLA: installing its pinned CPU plugin for the image data sets (scripts/install-xla.sh: PyPI, sha256-checked; ECCCO_XLA_INSTALL=0 skips this)"
    local log
    if ! log="$(timeout 600 scripts/install-xla.sh 2>&1)" || [ ! -f "$xla_plugin" ]; then
      echo "XLA: the plugin could not be installed ($(printf '%s\n' "$log" | tail -n 1)): everything on pure Go"; return 1
    fi
    printf '%s\n' "$log" | grep -m 1 'installed' || true
  fi
  build xla 2>/dev/null || { echo "XLA: eccco does not build with -tags xla here: everything on pure Go"; return 1; }
}
explicit() { case "$1" in auto|go|none|"") return 1 ;; esac; }
if [ "$quick" = no ] && { explicit "$image" || explicit "$tabular"; }; then
  build xla
elif [ "$quick" = no ] && [ -z "${GOMLX_BACKEND:-}" ] && { [ "$image" = auto ] || [ "$tabular" = auto ]; } && xla_auto; then
  : # built with -tags xla; eccco reproduce runs the sets asked for on xla:cpu
else
  build
fi
exec "$eccco" reproduce "$@"
