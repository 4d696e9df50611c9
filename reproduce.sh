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
#                            paper/eccco-go.pdf. On a 2-core machine from a fresh clone, with XLA for the
#                            image sets (its plugin installed by this script where it can) and the defaults,
#                            the models and benchmark took 1 h 52 min (protocol 12; bench/README.md), 52
#                            min of it the six synthetic and tabular sets' benchmark on pure Go (12 min on
#                            XLA at protocol 11: ECCCO_TABULAR_BACKEND=auto); many hours on pure Go alone.
#                            On a faster 2-core machine (AVX-512) the whole protocol took 48 min.
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
# Stages: data, perf, bench, figures, notebooks, report. Each prints a line when it starts; the long ones
# print progress lines with an ETA (a live bar on a terminal; ECCCO_PROGRESS=lines for plain lines).
# Each stage's wall time and status go to OUT/stages.tsv (OUT: runs/quick, or runs for the full profile;
# tab-separated stage, wall seconds, status, CPU seconds of its processes), which the report's provenance
# appendix shows; the run ends with
# a table of the stages (status, time, outputs) and the path of the PDF. A run interrupted (Ctrl-C, kill,
# a failed stage) and started again adds the new invocation's times to the recorded ones, so the times
# are those of making the outputs across the resume.
#
# Resumable: run it again and it does no finished work again. Saved models are reused, finished benchmark
# units skipped; figures and notebooks are skipped while a stamp file (OUT/.figures.stamp,
# OUT/.notebooks.stamp) matches their inputs (the eccco binary, the models, the benchmark results, the
# notebooks, the data sets present), and a figures stage killed half-way draws again only the figures
# without a record of the same inputs (OUT/.figures.records/); the report is rebuilt (seconds). Without TeX the report stage writes
# the LaTeX sources and Markdown, says SKIP for the PDF with how to install TeX
# (scripts/texlive-packages.txt), removes an earlier run's PDF, and the script still succeeds. One run per
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

profile=paper
mode=authors-code
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) profile=quick ;;
    --mode)
      if [ $# -lt 2 ]; then echo "reproduce.sh: --mode needs a value: authors-code or paper (see --help)" >&2; exit 2; fi
      shift; mode="$1" ;;
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

eccco="${ECCCO_BIN:-bin/eccco}"
jobs="${ECCCO_JOBS:-}"
if [ -z "$jobs" ]; then
  jobs=1
  [ "$(nproc 2>/dev/null || echo 1)" -ge 2 ] && jobs=2
fi
case "$jobs" in
  ''|*[!0-9]*|0) echo "reproduce.sh: ECCCO_JOBS must be a whole number ≥ 1, not '$jobs'" >&2; exit 2 ;;
esac
mkdir -p "$(dirname "$eccco")"
# The image data sets (MNIST, Fashion-MNIST) train and run several times faster on XLA's CPU plugin than on
# the pure-Go backend (go doc ./eccco/backend). With ECCCO_IMAGE_BACKEND unset or "auto", the full profile
# runs them on XLA when GOMLX_BACKEND is not set, a C compiler is there (cgo), the pinned plugin is installed
# — scripts/install-xla.sh installs it into .xla/ here when it is missing: from PyPI, sha256-checked, once per
# checkout, never while eccco runs; ECCCO_XLA_INSTALL=0 skips that — and eccco builds with -tags xla;
# otherwise it says why in one line and everything runs on pure Go, as without XLA. "go" keeps them on pure
# Go; any other value (e.g. xla:cpu) is passed to --image-backend and must work. The synthetic and tabular
# sets' benchmark is about 3 × faster on XLA too (each model's graphs compiled once for its 50 runs) but stays
# on pure Go unless ECCCO_TABULAR_BACKEND says otherwise: there the committed results come back byte for
# byte. The quick profile stays on pure Go (its small models compile in milliseconds there).
image_backend="${ECCCO_IMAGE_BACKEND:-auto}"
tabular_backend="${ECCCO_TABULAR_BACKEND:-go}"
xla_plugin="${ECCCO_XLA_DIR:-.xla}/pjrt_c_api_cpu_plugin.so"
# One run per output folder at a time: a second one stops here, naming the first (flock, util-linux), before
# it builds the eccco binary that the first one runs. The folder is the profile's (below).
case "$profile/$mode" in
  quick/paper) out=runs/quick-paper-mode ;;
  quick/*) out=runs/quick ;;
  */paper) out=runs/paper-mode ;;
  *) out=runs ;;
esac
mkdir -p "$out"
lock_file="$out/.reproduce.lock"
exec 9>>"$lock_file"
if ! flock -n 9; then
  echo "reproduce.sh: another reproduce.sh (process $(cat "$lock_file" 2>/dev/null || echo '?')) is writing to $out; wait for it to finish" >&2
  exit 1
fi
echo $$ >"$lock_file"

# xla_usable: the full profile, GOMLX_BACKEND unset, cgo, the pinned plugin installed (here, if need be), and
# eccco built with -tags xla (the binary is then built that way). Tried once; a failure is said once.
xla_built=no xla_tried=no
xla_usable() {
  [ "$profile" = paper ] && [ -z "${GOMLX_BACKEND:-}" ] || return 1
  [ "$xla_built" = yes ] && return 0
  [ "$xla_tried" = no ] || return 1
  xla_tried=yes
  if ! command -v "${CC:-gcc}" >/dev/null 2>&1 && ! command -v cc >/dev/null 2>&1; then
    echo "XLA: no C compiler for cgo (-tags xla): everything on pure Go"
    return 1
  fi
  if [ ! -f "$xla_plugin" ]; then
    if [ "${ECCCO_XLA_INSTALL:-1}" = 0 ]; then
      echo "XLA: its plugin is not installed (ECCCO_XLA_INSTALL=0; scripts/install-xla.sh installs it): everything on pure Go"
      return 1
    fi
    echo "XLA: installing its pinned CPU plugin for the image data sets (scripts/install-xla.sh: PyPI, sha256-checked; ECCCO_XLA_INSTALL=0 skips this)"
    local log
    if ! log="$(timeout 600 scripts/install-xla.sh 2>&1)" || [ ! -f "$xla_plugin" ]; then
      echo "XLA: the plugin could not be installed ($(printf '%s\n' "$log" | tail -n 1)): everything on pure Go"
      return 1
    fi
    printf '%s\n' "$log" | grep -m 1 'installed' || true
  fi
  if ! CGO_ENABLED=1 go build -trimpath -tags xla -o "$eccco" ./eccco/cmd/eccco 2>/dev/null; then
    echo "XLA: eccco does not build with -tags xla here: everything on pure Go"
    return 1
  fi
  xla_built=yes
}
case "$image_backend" in
  auto) image_backend=; if xla_usable; then image_backend=xla:cpu; fi ;;
  go|none) image_backend= ;;
  *) ;;
esac
case "$tabular_backend" in
  auto) tabular_backend=; if xla_usable; then tabular_backend=xla:cpu; fi ;;
  go|none|"") tabular_backend= ;;
  *) ;;
esac
[ "$profile" = quick ] && tabular_backend=
# -trimpath (here and above): the binary holds no path of this checkout, so two clones of one commit build
# the same bytes, and the stages' stamps and the figures' records, which fingerprint it, agree.
if [ "$xla_built" = no ]; then
  if [ -n "$image_backend$tabular_backend" ]; then
    CGO_ENABLED=1 go build -trimpath -tags xla -o "$eccco" ./eccco/cmd/eccco
  else
    go build -trimpath -o "$eccco" ./eccco/cmd/eccco
  fi
fi
"$eccco" backend
[ "$jobs" -gt 1 ] && echo "perf and bench: $jobs data sets at a time (ECCCO_JOBS)"
image_args=()
if [ -n "$image_backend" ]; then
  image_args=(--image-backend "$image_backend")
  echo "image data sets: $image_backend (ECCCO_IMAGE_BACKEND=go keeps them on the backend above)"
fi
tabular_args=()
if [ -n "$tabular_backend" ]; then
  tabular_args=(--tabular-backend "$tabular_backend")
  echo "synthetic and tabular benchmark: $tabular_backend (unset ECCCO_TABULAR_BACKEND to keep it on the backend above)"
fi

# --- The profile's settings --------------------------------------------------------------------------
if [ "$profile" = quick ]; then
  out=runs/quick
  [ "$mode" = paper ] && out=runs/quick-paper-mode
  common=(--mode "$mode" --set epochs=5 --models-dir "$out/models")
  # German Credit is left out: in the authors'-code mode its models are fitted on a class-sorted half of the
  # data, and 5-epoch models predict a single class, so no factual of the other one can be drawn (the
  # authors' benchmark stops there too).
  perf_args=(--data linearly-separable,moons,circles --skip-missing --models mlp,mlp-ensemble,jem,jem-ensemble --jobs "$jobs" "${common[@]}")
  bench_args=(--data linearly-separable,moons,circles --skip-missing --runs 2 --factuals 20 --jobs "$jobs" "${common[@]}")
  models_dir="$out/models"
  figures_args=(--mode paper --set epochs=5,lenet-epochs=1 --models-dir "$models_dir")
  perf_out="$out/perf" bench_out="$out/bench" publish=no
  report_args=(--quick --results "$bench_out" --paper-mode "" --replay-only "" --second-seed "" --perf "$perf_out/perf.csv" --figures figures
    --out "$out/report" --markdown "$out/report/eccco-go.md")
  pdf="$out/report/eccco-go.pdf"   # never over the full profile's PDF, paper/eccco-go.pdf
else
  out=runs
  perf_args=(--data all --models mlp,mlp-ensemble,jem,jem-ensemble,lenet --mode "$mode" --jobs "$jobs" ${image_args[@]+"${image_args[@]}"})
  bench_args=(--data all --mode "$mode" --jobs "$jobs" ${image_args[@]+"${image_args[@]}"} ${tabular_args[@]+"${tabular_args[@]}"})
  models_dir=runs/models
  figures_args=(--mode paper ${image_args[@]+"${image_args[@]}"})   # the paper's concepts, in its equations
  if [ "$mode" = authors-code ]; then
    perf_out=runs/perf bench_out=runs/bench publish=yes
    # The committed report: sources in paper/report/ with the committed 100-DPI gallery (small), the
    # Markdown version in paper/eccco-go.md.
    report_args=(--results paper/results --perf paper/model-performance.csv --figures figures/gallery
      --out paper/report --markdown paper/eccco-go.md)
    pdf=paper/eccco-go.pdf
  else
    out=runs/paper-mode
    perf_out=runs/paper-mode/perf bench_out=runs/paper-mode/bench publish=no
    report_args=(--results "$bench_out" --paper-mode "" --replay-only "" --second-seed "" --perf "$perf_out/perf.csv" --figures figures
      --out "$out/report" --markdown "$out/report/eccco-go.md")
    pdf="$out/report/eccco-go.pdf"
  fi
fi
mkdir -p "$out"
stages_file="$out/stages.tsv"


# --- Stage bookkeeping -------------------------------------------------------------------------------
names=() statuses=() times=() cpus=() outputs=()
note_file="$out/.stage-note"
# A stage's seconds in stages.tsv are its wall time summed over every invocation of an unfinished run: a
# run interrupted (or failed) and started again adds the new invocation's time to the recorded one, so
# that the times are those of making the outputs, not of the last invocation alone. OUT/.stages.unfinished
# marks a run that has not yet ended; a run that ends removes it, and the next one starts from zero.
# ECCCO_TEST_CLOCK=frozen (for tests only: go doc ./eccco/internal/clock) records every time as 0.0, so
# that an uninterrupted run and a resumed one can be compared byte for byte.
unfinished="$out/.stages.unfinished"
all_stages=(data perf bench figures notebooks report)
declare -A prior_secs=() prior_status=() prior_cpu=()
if [ -f "$unfinished" ] && [ -f "$stages_file" ]; then
  while IFS=$'\t' read -r s secs st cpu; do
    [ "$s" = stage ] && continue
    prior_secs[$s]=$secs prior_status[$s]=$st prior_cpu[$s]=${cpu:-0.0}
  done <"$stages_file"
  echo "(resuming an unfinished run: each stage's time in $stages_file adds to the one recorded)"
fi
: >"$unfinished"
cur_stage="" cur_t0="" cur_c0=""

# now prints the wall clock in seconds (0 under the frozen test clock).
now() {
  if [ "${ECCCO_TEST_CLOCK:-}" = frozen ]; then echo 0; else date +%s.%N; fi
}

# cpu_now sets cpu to the CPU time (user + system, seconds) of this script's finished child processes,
# which include each stage's eccco and what it ran (0 under the frozen test clock). It must run in this
# shell, not in a command substitution: that forks a process with no finished children of its own.
cpu=0
cpu_now() {
  cpu=0
  [ "${ECCCO_TEST_CLOCK:-}" = frozen ] && return
  times >"$out/.cpu.$$"
  cpu=$(awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] }; printf "%.1f", s }' "$out/.cpu.$$")
  rm -f "$out/.cpu.$$"
}

# write_stages rewrites OUT/stages.tsv (atomically): each stage of this run so far with the time recorded
# for it by the earlier invocations of the run added, then the stages only those reached.
write_stages() {
  local tmp="$stages_file.tmp.$$" i s found
  printf 'stage\tseconds\tstatus\tcpu_seconds\n' >"$tmp"
  for s in "${all_stages[@]}"; do
    found=no
    for i in "${!names[@]}"; do
      if [ "${names[$i]}" = "$s" ]; then
        printf '%s\t%s\t%s\t%s\n' "$s" "${times[$i]}" "${statuses[$i]}" "${cpus[$i]}" >>"$tmp"
        found=yes
      fi
    done
    if [ "$found" = no ] && [ -n "${prior_secs[$s]:-}" ]; then
      printf '%s\t%s\t%s\t%s\n' "$s" "${prior_secs[$s]}" "${prior_status[$s]}" "${prior_cpu[$s]:-0.0}" >>"$tmp"
    fi
  done
  mv "$tmp" "$stages_file"
}

# add_secs A B prints A + B with one decimal.
add_secs() { awk -v a="${1:-0}" -v b="$2" 'BEGIN { printf "%.1f", a + b }'; }

# On Ctrl-C or kill, the running stage's time so far is recorded (status "interrupted") before exiting,
# for the next invocation to add to.
on_signal() {
  trap - INT TERM HUP
  if [ -n "$cur_stage" ]; then
    local secs
    secs=$(awk -v a="$cur_t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
    cpu_now
    cpu=$(awk -v a="$cur_c0" -v b="$cpu" 'BEGIN { printf "%.1f", b - a }')
    names+=("$cur_stage") statuses+=("interrupted") times+=("$(add_secs "${prior_secs[$cur_stage]:-}" "$secs")") cpus+=("$(add_secs "${prior_cpu[$cur_stage]:-}" "$cpu")") outputs+=("")
    write_stages
    echo "reproduce.sh: interrupted in stage $cur_stage; run it again to resume (finished work is kept)" >&2
  fi
  exit "$1"
}
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
trap 'on_signal 129' HUP

summary() {
  local i
  echo
  echo "== summary ($profile profile, mode $mode; stage times in $stages_file)"
  printf '%-10s %-28s %10s %10s  %s\n' stage status time cpu outputs
  for i in "${!names[@]}"; do
    printf '%-10s %-28s %9ss %9ss  %s\n' "${names[$i]}" "${statuses[$i]}" "${times[$i]}" "${cpus[$i]}" "${outputs[$i]}"
  done
}

# stage NAME OUTPUTS DESCRIPTION -- COMMAND...: runs COMMAND under set -e in a subshell, records its wall
# time and status (COMMAND may write a status such as "skipped (up to date)" to $note_file), stops the
# script with a summary when it fails.
stage_no=0
stage() {
  local name=$1 outs=$2 desc=$3
  shift 4
  stage_no=$((stage_no + 1))
  echo "== [$stage_no/6] $name: $desc (started $(date +%H:%M:%S))"
  rm -f "$note_file"
  local t0 c0 rc=0
  t0=$(now)
  cpu_now
  c0=$cpu
  cur_stage=$name cur_t0=$t0 cur_c0=$c0
  set +e
  # The stage's subshell outlives a signal until the command it waits for has ended (a trap, unlike the
  # default action, waits for the foreground command): eccco, which gets the same signal, records the
  # unit it was computing and stops, and only then does this script exit — and release its lock — so a
  # run started right after Ctrl-C or kill is not refused by a lock still held by the old eccco.
  ( set -e; trap 'exit 130' INT; trap 'exit 143' TERM; trap 'exit 129' HUP; "$@" )
  rc=$?
  set -e
  cur_stage=""
  local secs status
  secs=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  cpu_now
  cpu=$(awk -v a="$c0" -v b="$cpu" 'BEGIN { printf "%.1f", b - a }')
  status=ok
  [ -s "$note_file" ] && status=$(cat "$note_file")
  [ "$rc" -ne 0 ] && status="failed (exit $rc)"
  rm -f "$note_file"
  # A stage made by an earlier invocation of this run and found up to date now was made ok.
  [ "$status" = "skipped (up to date)" ] && [[ "${prior_status[$name]:-}" == ok* ]] && status=${prior_status[$name]}
  secs=$(add_secs "${prior_secs[$name]:-}" "$secs")
  cpu=$(add_secs "${prior_cpu[$name]:-}" "$cpu")
  names+=("$name") statuses+=("$status") times+=("$secs") cpus+=("$cpu") outputs+=("$outs")
  write_stages
  if [ "$rc" -ne 0 ]; then
    summary
    echo "reproduce.sh: stage $name failed; fix the cause and run it again: finished work is kept" >&2
    exit "$rc"
  fi
}

# data_present prints which data sets are present here (eccco data list), so that a stage's stamp changes
# when a data set is fetched or removed.
data_present() {
  "$eccco" data list 2>/dev/null | awk '{print $1, $3}' || true
}

# stamp_key prints a fingerprint of files and directory trees (the content and relative names of the
# files, lock files left out; not their times, so that the same files made by two runs give the same
# key): a stage whose stamp holds the same key is up to date.
stamp_key() {
  local p
  for p in "$@"; do
    if [ -d "$p" ]; then
      (cd "$p" && find . -type f ! -name '.*.lock' -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
    elif [ -f "$p" ]; then
      sha256sum "$p"
    else
      echo "missing $p"
    fi
  done | sha256sum | cut -d' ' -f1
}

# --- The stages --------------------------------------------------------------------------------------
# data_missing prints the data sets not available here, comma-separated ("" when all are).
data_missing() {
  data_present | awk '$2 == "no" { print $1 }' | paste -sd, - | sed 's/,/, /g'
}

# note_missing STAGE-WORDS: when data sets are missing, the stage's status says what it left out.
note_missing() {
  local missing
  missing=$(data_missing)
  [ -n "$missing" ] && echo "ok ($1 $missing skipped: not available)" >"$note_file"
  return 0
}

data_stage() {
  local fetch_args=()
  [ -n "${ECCCO_MIRROR:-}" ] && fetch_args+=(--from "$ECCCO_MIRROR")
  "$eccco" data fetch all "${fetch_args[@]}" || echo "(some data sets are not available here; they are skipped below)"
  "$eccco" data list
  note_missing "data sets"
}

perf_stage() {
  "$eccco" perf "${perf_args[@]}" --out "$perf_out"
  if [ "$publish" = yes ]; then
    for f in perf.md perf.csv perf.tex; do cp "$perf_out/$f" "paper/model-performance.${f#perf.}"; done
  fi
}

bench_stage() {
  "$eccco" bench "${bench_args[@]}" --out "$bench_out"
  if [ "$publish" = yes ]; then
    mkdir -p paper/results
    cp "$bench_out"/tables/* paper/results/
  fi
}

figures_stage() {
  local stamp="$out/.figures.stamp" key
  key=$(figures_key)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ] && compgen -G 'figures/*.png' >/dev/null; then
    echo "(figures up to date: their inputs have not changed since $(date -r "$stamp" '+%F %T'); delete $stamp to redraw)"
    echo "skipped (up to date)" >"$note_file"
    return 0
  fi
  # Each figure drawn is recorded (OUT/.figures.records/NAME.done: the pass key, its files' checksums), so
  # that a pass killed half-way and run again draws only the figures missing or made from other inputs.
  "$eccco" figures "${figures_args[@]}" --results "$bench_out" --out figures \
    --records "$out/.figures.records" --records-key "$(figures_pass_key)"
  # The figures may have trained models: the key is taken after them.
  figures_key >"$stamp"
  note_missing "figures of"
}

# figures_key: the figures' inputs: the binary, the models, the benchmark results and the data sets present.
figures_key() {
  { stamp_key "$eccco" "$models_dir" "$bench_out/results.csv"; data_present; } | sha256sum | cut -d' ' -f1
}

# figures_pass_key: what a figure drawn in a pass was made from, for its record: the binary, the figures'
# settings, the benchmark results and the data sets present. Not the models folder: the figures train the
# models they miss (the same bytes from the same binary and settings), so a pass killed after training one
# would otherwise not recognise its own figures.
figures_pass_key() {
  { stamp_key "$eccco" "$bench_out/results.csv"; printf '%s\n' "${figures_args[@]}"; data_present; } | sha256sum | cut -d' ' -f1
}

notebooks_stage() {
  local stamp="$out/.notebooks.stamp" key
  key=$({ stamp_key "$eccco" notebooks/*.ipynb notebooks/*.go; data_present; } | sha256sum | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then
    echo "(notebooks up to date since $(date -r "$stamp" '+%F %T'); delete $stamp to run them again)"
    echo "skipped (up to date)" >"$note_file"
    return 0
  fi
  if notebooks/setup.sh >/dev/null 2>&1; then
    if [ "$publish" = yes ]; then
      # The full profile runs the notebooks with their full settings and commits-ready copies of them,
      # outputs included, to paper/notebooks/ (readable on the code host), naming the commit.
      ECCCO_QUICK=0 ECCCO_NOTEBOOKS=1 go test ./notebooks -count=1 -run TestNotebooks -timeout 120m
      python3 scripts/publish_notebooks.py runs/notebooks/executed paper/notebooks \
        --commit "$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')" --settings full
    else
      ECCCO_NOTEBOOKS=1 go test ./notebooks -count=1 -run TestNotebooks -timeout 120m
    fi
    echo "$key" >"$stamp"
    note_missing "cells of"
  else
    echo "(notebooks skipped: their tool chain could not be installed here; see notebooks/README.md)"
    echo "SKIP (no JupyterLab)" >"$note_file"
  fi
}

# our_pdf PDF: whether PDF is a report eccco made (its creator, "generated by eccco report", which pdfTeX
# writes with its spaces as \040), so that only such a file is ever removed.
our_pdf() {
  [ -f "$1" ] && grep -qaF -e 'generated by eccco report' -e '(generated\040by\040eccco\040report)' "$1"
}

report_stage() {
  if command -v pdflatex >/dev/null; then
    if ! "$eccco" report "${report_args[@]}" --stages "$stages_file" --pdf "$pdf"; then
      if our_pdf "$pdf"; then
        rm -f "$pdf" # an earlier run's PDF would not match these results
        echo "(removed $pdf, an earlier run's PDF: this run could not build one)" >&2
      fi
      return 1
    fi
  else
    "$eccco" report "${report_args[@]}" --stages "$stages_file" --pdf ""
    if our_pdf "$pdf"; then
      rm -f "$pdf" # a PDF of an earlier run would not match these results
      echo "(removed $pdf, an earlier run's PDF that no longer matches the results)"
    fi
    echo "SKIP: the PDF needs TeX, which is not installed here; install it (Debian/Ubuntu, as root) with"
    echo "  apt-get install --no-install-recommends \$(cat scripts/texlive-packages.txt)"
    echo "and run ./reproduce.sh again (the finished stages are skipped)"
    echo "SKIP (no TeX: sources only)" >"$note_file"
  fi
}

stage data "${ECCCO_DATA_DIR:-data/cache}/" "fetch (sha256-checked) or copy the data sets" -- data_stage
stage perf "$perf_out/perf.md" "train or load the models and score them (the paper's Table 5)" -- perf_stage
stage bench "$bench_out/tables/" "the counterfactual benchmark (resumable units) and its tables" -- bench_stage
stage figures "figures/" "the paper's figures (PNG, SVG, PDF)" -- figures_stage
figures_before=$(figures_key)
stage notebooks "runs/notebooks/html/" "the notebooks executed headless" -- notebooks_stage
# The notebooks may save models the figures did not use (a model the figures needed was trained by them
# first): figures up to date before the notebooks stay so.
if [ -f "$out/.figures.stamp" ] && [ "$(cat "$out/.figures.stamp")" = "$figures_before" ]; then
  figures_key >"$out/.figures.stamp"
fi
report_src="${report_args[*]}"
report_src="${report_src#*--out }"
stage report "${report_src%% *}/, $pdf" "the reproduction report (LaTeX, Markdown, PDF)" -- report_stage

summary
rm -f "$unfinished"
: >"$lock_file" # the finished run's process id, no longer of use (the lock is released when this script exits)
if [ -f "$pdf" ] && command -v pdflatex >/dev/null; then
  echo "report: $pdf"
else
  echo "report: no PDF (TeX is not installed); LaTeX sources in ${report_src%% *}/"
fi
