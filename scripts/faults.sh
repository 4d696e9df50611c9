#!/usr/bin/env bash
# faults.sh: issue 39's fault list (and the cases added since), run as a new user would, each on tiny inputs
# in a scratch folder, each classified:
#
#   clear error     rc ≠ 0, no stack, a message in the user's words (flags and files, no Go API names)
#   correct result  rc 0 and the result checked against an expected value (e.g. byte-identical to a clean run)
#   PANIC           a "goroutine " stack or "panic:" on stderr
#   SILENT          rc 0 where an error was due, or rc 0 with a wrong result
#   LOSS            a file of the user's changed (SHA-256 before and after)
#   UNCLEAR         an error whose message names a Go API field, or lacks the expected words
#   FAILED          an error where a result was due; HANG: past its time limit
#
# It prints one line per case and a summary, and exits 1 on any PANIC, SILENT, LOSS, UNCLEAR, FAILED or HANG.
#
# Usage: scripts/faults.sh [--bin PATH] [--keep]
#   --bin PATH    the eccco binary to try (default: built from this checkout into the scratch folder)
#   --keep        keep the scratch folder (its path is printed)
# ECCCO_DATA_DIR must hold the data sets (the synthetic ones are generated).
#
# Each case and the Go test that fails on the code before its fix and passes now (eccco/cmd/eccco unless
# said; grep the name):
#   empty-tables, empty-agree, modes-AA, figures-dpi-huge, sample-chains-huge
#                               TestTypedSizesAndInputsRefused (outputs_test.go)
#   empty-*, header-only-* (report, figures --results, modes read through benchmark.ReadResults)
#                               TestReadEmptyResults (eccco/benchmark)
#   emptied-unit-resume, unit-swapped-resume, unit-edited-resume, unit-cut-resume
#                               TestCheckUnit, TestCheckExistingFindsTheOddUnit (eccco/benchmark)
#   results-cut-report, results-cut-tables, results-cut-beside-checksum
#                               TestReadResultsCut (eccco/benchmark)
#   bench-runs-huge, bench-factuals-huge
#                               TestProtocolBounds (eccco/benchmark), TestBenchRejectsBadCounts
#   explain-n-huge              TestExplain (explain_test.go, its --n 1000000000 case)
#   set-energy-wachter, set-energy-eccco-wachter
#                               TestWithOverridesOnlyWhereTheTermIs (eccco/experiment)
#   set-dup, set-unknown        TestParseSet (eccco/experiment)
#   modes-without-schut         TestClaimNeedsItsGenerators (eccco/compare)
#   agree-protocols             TestAgreeRefusesDifferentProtocols (agree_test.go)
#   modes/agree/tables/figures/perf/bench-out-overwrite, bench-out-is-file
#                               TestNoCommandOverwritesAUsersFile; TestPrepare, TestFile (eccco/internal/outdir)
#   cp-diff-same-bytes          TestPDFImagesDeterministic (eccco/plot)
#   figures-records-*           TestRecords (eccco/figures), TestFiguresResumeFromRecords (outputs_test.go)
#   model-saved-twice-same-tree TestSavedTreeCarriesNoTime (eccco/internal/savedir)
#   bench-concurrent            TestLock (eccco/internal/outdir)
#   api-names                   TestMessagesNameFlagsNotGoFields (main_test.go)
#   reproduce-without-mnist     TestReportNamesUnavailableDataSets, TestBenchSkipMissing (the commands'
#                               half); TestFaults/without-data-sets (eccco/reproduce: the stages' half)
#   reproduce-lock, reproduce-after-fetching, reproduce-rerun-finished, reproduce-stale-pdf, and a
#   failed, an interrupted and resumed, and a shell-begun run
#                               TestFaults (eccco/reproduce, table-driven; no longer here: the stages
#                               are Go, eccco reproduce)
#   reproduce-mode-no-value     TestReproduceArguments (reproduce_test.go)
#   reproduce-cp-diff-same-bytes  TestPDFImagesDeterministic (eccco/plot), cp-diff-same-bytes here
#   (notebooks saved in a different order by two runs: TestNotebookFiles in notebooks/, not a case here;
#   reproduce.sh returning while its killed eccco still held the lock: moot, eccco reproduce holds the lock itself)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/scripts/goenv.sh"
bin="" keep=no
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="${2:?--bin needs a path}"; shift ;;
    --keep) keep=yes ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "faults.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
S="$(mktemp -d "${TMPDIR:-/tmp}/eccco-faults.XXXXXX")"
[ "$keep" = yes ] && echo "scratch folder: $S" || trap 'rm -rf "$S"' EXIT
export ECCCO_PROGRESS=0
if [ -z "$bin" ]; then
  bin="$S/eccco"
  (cd "$root" && go build -o "$bin" ./eccco/cmd/eccco) || { echo "faults.sh: eccco does not build" >&2; exit 1; }
fi
B="$bin" M="$S/models"
t0=$(date +%s)
declare -A count=()
bad=0 n=0

# sums FILE...: one line of SHA-256 sums of the files (missing: "-"), to tell whether a user's file changed.
sums() { local f; for f in "$@"; do if [ -f "$f" ]; then sha256sum <"$f" | cut -c1-16; else echo -; fi; done | paste -sd' '; }

# api names a Go API field in a message (the issue's Options.OwnModels, Model.Replace, FetchOptions.Dir).
api='(Options|CustomOptions|FetchOptions|Model|Protocol|Env|Records|Spec)\.[A-Z][A-Za-z]+'

# report NAME CLASS DETAIL: one line, counted.
report() {
  n=$((n + 1)); count[$2]=$(( ${count[$2]:-0} + 1 ))
  case "$2" in "clear error"|"correct result") ;; *) bad=$((bad + 1)) ;; esac
  printf '%-28s | %-14s | %s\n' "$1" "$2" "$(printf '%s' "$3" | tr '\n' ' ' | cut -c1-170)"
}

# run_ LIMIT CMD...: runs it with stdout in $S/out, stderr in $S/err; sets rc and panic (yes/no).
run_() {
  local limit=$1; shift
  timeout "$limit" "$@" >"$S/out" 2>"$S/err"; rc=$?
  panic=no; grep -q 'goroutine \|panic:' "$S/err" && panic=yes
  return 0
}

# want_error NAME WORDS [protect FILE... --] CMD...: an error is due; its message must hold WORDS (an
# extended regex, case-insensitive) and no Go API name; the protected files must not change.
want_error() {
  local name=$1 words=$2; shift 2
  local protect=()
  if [ "${1:-}" = protect ]; then shift; while [ "$1" != -- ]; do protect+=("$1"); shift; done; shift; fi
  local before; before=$(sums ${protect[@]+"${protect[@]}"})
  run_ 180 "$@"
  local msg; msg=$(grep -v '^\s*$' "$S/err" | tail -n 1)
  if [ "$panic" = yes ]; then report "$name" PANIC "$(grep -m1 'panic:\|goroutine ' "$S/err")"
  elif [ ${#protect[@]} -gt 0 ] && [ "$(sums "${protect[@]}")" != "$before" ]; then report "$name" LOSS "changed: ${protect[*]}"
  elif [ "$rc" = 124 ]; then report "$name" HANG "past 180 s"
  elif [ "$rc" = 0 ]; then report "$name" SILENT "rc 0; an error was due ($(tail -n 1 "$S/out"))"
  elif grep -Eq "$api" "$S/err"; then report "$name" UNCLEAR "names a Go API field: $(grep -Eo "$api" "$S/err" | head -1): $msg"
  elif ! grep -Eiq -e "$words" "$S/err"; then report "$name" UNCLEAR "rc $rc, without /$words/: $msg"
  else report "$name" "clear error" "rc $rc: $msg"
  fi
}

# want_result NAME CHECK CMD...: rc 0 is due and then CHECK (a shell command) must succeed.
want_result() {
  local name=$1 check=$2; shift 2
  run_ 300 "$@"
  if [ "$panic" = yes ]; then report "$name" PANIC "$(grep -m1 'panic:\|goroutine ' "$S/err")"
  elif [ "$rc" = 124 ]; then report "$name" HANG "past 300 s"
  elif [ "$rc" != 0 ]; then report "$name" FAILED "rc $rc: $(grep -v '^\s*$' "$S/err" | tail -n 1)"
  elif ! (eval "$check") >"$S/check" 2>&1; then report "$name" SILENT "rc 0, but: $check $(head -c 200 "$S/check")"
  else report "$name" "correct result" "rc 0; $check"
  fi
}

# --- A small benchmark to work on (moons, the authors' built-in models: seconds) ------------------------
proto=(--data moons --runs 2 --factuals 5 --generators ECCCo,Wachter,REVISE --mode authors-code --set epochs=5 --models-dir "$M")
if ! "$B" bench "${proto[@]}" --out "$S/b0" >/dev/null 2>"$S/setup.err"; then
  echo "faults.sh: the small benchmark every case starts from failed:"; tail -n 5 "$S/setup.err"; exit 1
fi
unit() { echo "$1/units/moons/mlp/$2/run-00$3.csv"; }
fresh() { rm -rf "$1"; cp -r "$S/b0" "$1"; rm -f "$1/results.csv"; }
same_results() { cmp "$1/results.csv" "$S/b0/results.csv"; }

# --- Empty and header-only inputs (issue 39: panics in benchmark.ReadCSV) ------------------------------
mkdir -p "$S/e" "$S/h"; : >"$S/e/results.csv"; head -n 1 "$S/b0/results.csv" >"$S/h/results.csv"
for kind in e:empty h:header-only; do
  d="$S/${kind%%:*}" k=${kind#*:}
  want_error "$k-tables" 'no results' "$B" tables --in "$d" --out "$S/t-$k"
  want_error "$k-report" 'no results' "$B" report --results "$d" --figures "" --out "$S/r-$k" --markdown "$S/r-$k/x.md" --pdf ""
  want_error "$k-figures-results" 'no results' "$B" figures --results "$d" --only poc-gen --out "$S/f-$k"
  want_error "$k-modes" 'no results' "$B" modes --in "$d,$S/b0"
  want_error "$k-agree" 'no results' "$B" agree --in "$d,$S/b0"
done

# --- Units and results verified on read (issue 39: silent wrong tables) -------------------------------
fresh "$S/u1"; : >"$(unit "$S/u1" eccco 1)"
want_result emptied-unit-resume 'same_results "$S/u1"' "$B" bench "${proto[@]}" --out "$S/u1"
fresh "$S/u2"; cp "$(unit "$S/u2" eccco 2)" "$(unit "$S/u2" eccco 1)"
want_result unit-swapped-resume 'same_results "$S/u2"' "$B" bench "${proto[@]}" --out "$S/u2"
fresh "$S/u3"; awk -F, 'BEGIN { OFS = "," } NR == 2 { $8 = "9.99" } { print }' "$(unit "$S/b0" wachter 1)" >"$(unit "$S/u3" wachter 1)"
want_result unit-edited-resume 'same_results "$S/u3"' "$B" bench "${proto[@]}" --out "$S/u3"
fresh "$S/u4"; head -n 4 "$(unit "$S/b0" revise 2)" >"$(unit "$S/u4" revise 2)"
want_result unit-cut-resume 'same_results "$S/u4"' "$B" bench "${proto[@]}" --out "$S/u4"
mkdir -p "$S/rc"; rows=$(wc -l <"$S/b0/results.csv"); head -n $((rows - 3)) "$S/b0/results.csv" >"$S/rc/results.csv"
want_error results-cut-report 'does not hold what eccco wrote|rows' "$B" report --results "$S/rc" --figures "" --out "$S/r-cut" --markdown "$S/r-cut/x.md" --pdf ""
want_error results-cut-tables 'does not hold what eccco wrote|rows' "$B" tables --in "$S/rc" --out "$S/t-cut"
cp -r "$S/b0" "$S/rs"; head -n $((rows - 5)) "$S/b0/results.csv" >"$S/rs/results.csv"
want_error results-cut-beside-checksum 'checksum' "$B" tables --in "$S/rs" --out "$S/t-rs"

# --- Sizes a user types (issue 39: a 507 GB allocation, out of memory) ---------------------------------
want_error figures-dpi-huge '--dpi 100000' "$B" figures --dpi 100000 --only poc-gen --models-dir "$M" --out "$S/f-dpi"
want_error bench-runs-huge 'runs' "$B" bench --data moons --runs 1000000000 --factuals 5 --generators Wachter --mode authors-code --models-dir "$M" --out "$S/big1"
want_error bench-factuals-huge 'factuals' "$B" bench --data moons --runs 1 --factuals 1000000000 --generators Wachter --mode authors-code --models-dir "$M" --out "$S/big2"
want_error sample-chains-huge 'chains' "$B" sample --data moons --model mlp --class 0 --set chains=1000000000 --models-dir "$M" --out "$S/s.csv"
want_error explain-n-huge '--n' "$B" explain --data moons --model mlp --generator Wachter --n 1000000000 --mode authors-code --models-dir "$M"

# --- --set (issue 39: Wachter renamed "Wachter [energy=5]", duplicate keys accepted) ---------------------
want_error set-energy-wachter 'energy.*term' "$B" bench --data moons --runs 1 --factuals 3 --generators Wachter --mode authors-code --set energy=5 --models-dir "$M" --out "$S/se1"
want_result set-energy-eccco-wachter '[ -d "$S/se2/units/moons/mlp/wachter" ] && ! ls "$S/se2/units/moons/mlp" | grep -qi "wachter.*energy"' \
  "$B" bench --data moons --runs 1 --factuals 3 --generators ECCCo,Wachter --mode authors-code --set energy=5 --models-dir "$M" --out "$S/se2"
want_error set-dup 'twice' "$B" bench --data moons --runs 1 --factuals 3 --generators Wachter --set epochs=5 --set epochs=6 --models-dir "$M" --out "$S/sd"
want_error set-unknown 'unknown|no such|not a setting' "$B" bench --data moons --runs 1 --factuals 3 --generators Wachter --set nosuchkey=1 --models-dir "$M" --out "$S/su"

# --- modes and agree (issue 39: claims about Schut without Schut; A,A; different protocols) -------------
"$B" bench --data moons --runs 2 --factuals 5 --generators ECCCo,Wachter,REVISE --mode paper --set epochs=5 --models-dir "$M" --out "$S/bp" >/dev/null 2>&1
want_error modes-AA 'twice' "$B" modes --in "$S/b0,$S/b0"
want_error modes-without-schut 'schut' "$B" modes --in "$S/b0,$S/bp"
want_error agree-protocols 'protocol' "$B" agree --in "$S/b0,$S/bp"

# --- Outputs onto a user's files (issue 39: modes, agree, figures, tables, perf, bench overwrote them) ----
# (modes and agree write to standard output only since issue 52)
echo mine >"$S/notes.md"
for c in tables:comparison.md figures:poc-gen.png perf:perf.md bench:results.csv; do
  cmd=${c%%:*} f=${c#*:}; mkdir -p "$S/user-$cmd"; echo mine >"$S/user-$cmd/$f"
  case "$cmd" in
    tables) args=(tables --in "$S/b0") ;;
    figures) args=(figures --dpi 50 --only poc-gen --models-dir "$M") ;;
    perf) args=(perf --data moons --models mlp --mode authors-code --models-dir "$M") ;;
    bench) args=(bench --data moons --runs 1 --factuals 3 --generators Wachter --mode authors-code --models-dir "$M") ;;
  esac
  want_error "$cmd-out-overwrite" 'replace' protect "$S/user-$cmd/$f" -- "$B" "${args[@]}" --out "$S/user-$cmd"
done
want_error bench-out-is-file 'not a folder' protect "$S/notes.md" -- "$B" bench --data moons --runs 1 --factuals 3 --generators Wachter --mode authors-code --models-dir "$M" --out "$S/notes.md"

# --- Figures: the same bytes twice (issue 39: cp-diff.pdf differed), records of a resumable pass --------
figs=(figures --only cp-diff,poc-gen --mode paper --set epochs=1 --models-dir "$S/fm")
"$B" "${figs[@]}" --out "$S/fa" >/dev/null 2>&1
want_result cp-diff-same-bytes 'for f in cp-diff.pdf cp-diff.png cp-diff.svg poc-gen.pdf; do cmp "$S/fa/$f" "$S/fb/$f" || exit 1; done' "$B" "${figs[@]}" --out "$S/fb"
"$B" "${figs[@]}" --out "$S/fc" --records "$S/rec" >/dev/null 2>&1
rm -f "$S/rec/cp-diff.done"
want_result figures-records-resume 'grep -q "poc-gen .*up to date" "$S/out" && grep -q "wrote 1 figures" "$S/out" && cmp "$S/fa/cp-diff.pdf" "$S/fc/cp-diff.pdf"' \
  "$B" "${figs[@]}" --out "$S/fc" --records "$S/rec"
echo edited >>"$S/fc/poc-gen.svg"
want_result figures-records-edited-file 'grep -q "wrote 1 figures" "$S/out" && cmp "$S/fa/poc-gen.svg" "$S/fc/poc-gen.svg"' \
  "$B" "${figs[@]}" --out "$S/fc" --records "$S/rec"
want_result figures-records-other-flags 'grep -q "wrote 2 figures" "$S/out"' "$B" "${figs[@]}" --dpi 300 --out "$S/fc" --records "$S/rec"

# --- A model saved twice is the same tree (GoMLX named checkpoints after the time of saving) -----------
# (under the frozen test clock, which zeroes the training time recorded in spec.json)
ECCCO_TEST_CLOCK=frozen "$B" train --data moons --model mlp --set epochs=1 --out "$S/tree1" >/dev/null 2>&1
sleep 1.1 # another second on the clock
want_result model-saved-twice-same-tree 'diff -r "$S/tree1" "$S/tree2" >/dev/null' env ECCCO_TEST_CLOCK=frozen "$B" train --data moons --model mlp --set epochs=1 --out "$S/tree2"

# --- Concurrency (issue 39: two runs in one folder failed one with a wrong cause) ----------------------
conc=(bench --data moons --runs 20 --factuals 50 --generators ECCCo,Wachter,REVISE --mode authors-code --set epochs=5 --models-dir "$M" --out "$S/conc")
"$B" "${conc[@]}" >/dev/null 2>"$S/conc.err" &
first=$!
for _ in $(seq 100); do [ -s "$S/conc/.eccco.lock" ] && break; sleep 0.1; done
want_error bench-concurrent 'another eccco is writing' "$B" "${conc[@]}"
kill "$first" 2>/dev/null; wait "$first" 2>/dev/null

# --- Messages in the user's words (issue 39: Options.OwnModels, Model.Replace, FetchOptions.Dir) ---------
# (the saved model and VAE of other settings than asked for, a data folder that cannot be made, unknowns)
"$B" train --data moons --model mlp --set epochs=1 --models-dir "$S/am" >/dev/null 2>&1
"$B" train --data moons --model mlp --set epochs=2 --models-dir "$S/am" >/dev/null 2>"$S/a1.err"
"$B" vae --data moons --set vae-epochs=1 --models-dir "$S/am" >/dev/null 2>&1
"$B" vae --data moons --set vae-epochs=2 --models-dir "$S/am" >/dev/null 2>"$S/a2.err"
ECCCO_DATA_DIR="$S/notes.md/x" "$B" data fetch german-credit --from "$S/none" >/dev/null 2>"$S/a3.err"
ECCCO_DATA_DIR="$S/dd" "$B" data fetch nosuchset >/dev/null 2>"$S/a4.err"
"$B" explain --data moons --model mlp --generator NoSuchGenerator --models-dir "$M" >/dev/null 2>"$S/a5.err"
if api_hits=$(grep -EHo "$api" "$S"/a?.err); then report api-names UNCLEAR "$api_hits"
elif [ "$(cat "$S"/a?.err | grep -c .)" -lt 5 ]; then report api-names FAILED "a command meant to fail did not: $(wc -l "$S"/a?.err | paste -sd' ')"
else report api-names "clear error" "5 errors (saved model, VAE, data folder, unknown set, unknown generator) without a Go API name"
fi

echo
summary=""
for k in "clear error" "correct result" PANIC SILENT LOSS UNCLEAR FAILED HANG; do
  [ -n "${count[$k]:-}" ] && summary+="${summary:+, }${count[$k]} $k"
done
echo "faults: $n cases in $(( $(date +%s) - t0 )) s: $summary"
[ "$bad" -eq 0 ]
