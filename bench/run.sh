#!/usr/bin/env bash
# The side-by-side speed benchmark of bench/ (see bench/README.md): eccco-go's batched counterfactual search
# (pure Go, and XLA CPU where it builds), hand-vectorised PyTorch, a port of CARLA's Wachter and DiCE's
# gradient method, on the same workload; prints the table of µs per counterfactual-iteration and writes it,
# with the machine and the load, to bench/results.md.
#
# It installs what is missing first (idempotent; each step says what it does):
#   - the Go binaries bench/.build/gosearch (pure Go) and bench/.build/gosearch-xla (-tags xla, needs cgo and
#     the XLA CPU plugin of scripts/install-xla.sh, which it runs when the plugin is absent);
#   - Debian's PyTorch (apt-get install python3-torch, when run as root; otherwise it says what to install)
#     and OpenBLAS for it (apt-get install libopenblas0-pthread);
#   - bench/.venv: a venv of Debian's python3 with --system-site-packages and bench/requirements-dice.txt.
# Then it runs the implementations in turn, A B C … A B C …, for --rounds rounds, so that a change in the
# machine's load falls on all of them alike. Each figure is the median over the rounds.
#
# Usage: bench/run.sh [--rounds N] [--k K] [--b 100,1000] [--arch mnist,california] [--no-xla] [--quick]
#                     [--no-install] [--out FILE]
#   --rounds N  rounds of every implementation (default 3)
#   --k K       repeats inside each batched run (default 3; the per-factual ones time their factuals once)
#   --quick     --rounds 1 --k 1 (a check that everything runs)
#   --no-xla    leave eccco-go on XLA out
#   --no-install  install nothing; fail when something is missing
#   --out FILE  where the table goes (default bench/results.md)
# Environment: ECCCO_BENCH_PYTHON (default /usr/bin/python3, Debian's, which sees python3-torch).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"

rounds=3 k=3 batches=100,1000 archs=mnist,california xla=1 install=1 out="$here/results.md"
while [ $# -gt 0 ]; do
  case "$1" in
  --rounds) rounds="$2"; shift 2 ;;
  --k) k="$2"; shift 2 ;;
  --b) batches="$2"; shift 2 ;;
  --arch) archs="$2"; shift 2 ;;
  --no-xla) xla=0; shift ;;
  --quick) rounds=1 k=1; shift ;;
  --no-install) install=0; shift ;;
  --out) out="$2"; shift 2 ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

py="${ECCCO_BENCH_PYTHON:-/usr/bin/python3}"
build="$here/.build"
venv="$here/.venv"
mkdir -p "$build"
say() { echo "bench: $*" >&2; }
die() { echo "bench: $*" >&2; exit 1; }

# --- install what is missing ------------------------------------------------------------------------------
say "building bench/.build/gosearch (pure Go)"
go build -o "$build/gosearch" ./bench/gosearch

if [ "$xla" = 1 ]; then
  if ! command -v "${CC:-gcc}" >/dev/null 2>&1 && ! command -v cc >/dev/null 2>&1; then
    say "no C compiler: eccco-go on XLA (-tags xla needs cgo) left out"; xla=0
  elif [ "$install" = 1 ] && ! scripts/install-xla.sh >&2; then
    say "the XLA CPU plugin could not be installed: eccco-go on XLA left out"; xla=0
  elif ! CGO_ENABLED=1 go build -tags xla -o "$build/gosearch-xla" ./bench/gosearch; then
    say "go build -tags xla failed: eccco-go on XLA left out"; xla=0
  elif ! GOMLX_BACKEND=xla:cpu "$build/gosearch-xla" -arch california -b 1 -k 1 >/dev/null; then
    say "GOMLX_BACKEND=xla:cpu does not run: eccco-go on XLA left out"; xla=0
  fi
fi

if ! "$py" -c 'import torch' 2>/dev/null; then
  if [ "$install" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing Debian's PyTorch: apt-get install python3-torch"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-torch >&2
  fi
  "$py" -c 'import torch' 2>/dev/null ||
    die "$py cannot import torch: install Debian's python3-torch (apt-get install python3-torch) or set ECCCO_BENCH_PYTHON"
fi

# Debian's torch calls the system BLAS (libblas.so.3), by default the unoptimised reference BLAS, which makes
# it 4 times slower on the MNIST MLP; the benchmark runs it on OpenBLAS (libopenblas0-pthread), loaded through
# LD_LIBRARY_PATH for the Python implementations only. (Installing the package also makes OpenBLAS the
# system's libblas.so.3 through Debian's alternatives, unless an administrator has pinned another.)
openblas=/usr/lib/x86_64-linux-gnu/openblas-pthread
if [ ! -e "$openblas/libblas.so.3" ] && [ "$install" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  say "installing OpenBLAS for Debian's PyTorch: apt-get install libopenblas0-pthread"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libopenblas0-pthread >&2 || true
fi
blas="reference BLAS (libblas3; install libopenblas0-pthread for OpenBLAS)"
if [ -e "$openblas/libblas.so.3" ]; then
  export LD_LIBRARY_PATH="$openblas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  blas="OpenBLAS $(dpkg-query -W -f '${Version}' libopenblas0-pthread 2>/dev/null || echo '?') (libopenblas0-pthread, through LD_LIBRARY_PATH)"
fi

req="$here/requirements-dice.txt"
want="$(sha256sum "$req" | cut -c1-64) $("$py" --version 2>&1)"
if [ "$(cat "$venv/.pinned" 2>/dev/null)" != "$want" ]; then
  [ "$install" = 1 ] || die "bench/.venv is missing or out of date (run without --no-install)"
  say "making bench/.venv (Debian's python3, --system-site-packages) with bench/requirements-dice.txt"
  rm -rf "$venv"
  "$py" -m venv --system-site-packages "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r "$req" >&2
  echo "$want" >"$venv/.pinned"
fi

# --- the implementations, in the order of each round ----------------------------------------------------
# PyTorch's OpenMP threads spin while they wait; on a machine whose cores are busy with other work that
# makes 2 threads 4-18 times slower than 1 (measured here under a load of 10 on 2 cores). OMP_WAIT_POLICY=PASSIVE
# lets them sleep instead, for every Python implementation alike.
export OMP_WAIT_POLICY=PASSIVE
torchv="$(dpkg-query -W -f '${Version}' python3-torch 2>/dev/null | sed 's/+.*//')"
[ -n "$torchv" ] || torchv="$("$py" -c 'import torch; print(torch.__version__.split("+")[0])')"
common=(-b "$batches" -k "$k")
names=() cmds=()
add() { names+=("$1"); shift; cmds+=("$(printf '%q ' "$@")"); }
add "eccco-go (pure Go)" "$build/gosearch" -arch "$archs" "${common[@]}" -impl "eccco-go/go"
add "eccco-go (pure Go, Searcher)" "$build/gosearch" -arch "$archs" "${common[@]}" -searcher -impl "eccco-go/go+Searcher"
if [ "$xla" = 1 ]; then
  # The steady-state step at XLA's default optimisation level 2 (eccco's own default is 1, which compiles
  # several times faster and wins over a whole benchmark, but its step was up to 1.5 × slower here on the
  # MNIST MLP; see go doc ./eccco/backend). A level in the caller's XLA_FLAGS is kept.
  xlaflags="${XLA_FLAGS:---xla_backend_optimization_level=2}"
  add "eccco-go (XLA CPU)" env GOMLX_BACKEND=xla:cpu XLA_FLAGS="$xlaflags" "$build/gosearch-xla" -arch "$archs" "${common[@]}" -impl "eccco-go/xla:cpu"
  add "eccco-go (XLA CPU, Searcher)" env GOMLX_BACKEND=xla:cpu XLA_FLAGS="$xlaflags" "$build/gosearch-xla" -arch "$archs" "${common[@]}" -searcher -impl "eccco-go/xla:cpu+Searcher"
fi
add "PyTorch, 2 threads" env OPENBLAS_NUM_THREADS=2 "$py" bench/torch_search.py --arch "$archs" "${common[@]}" --threads 2 --impl "pytorch-$torchv"
add "PyTorch, 1 thread" env OPENBLAS_NUM_THREADS=1 "$py" bench/torch_search.py --arch "$archs" "${common[@]}" --threads 1 --impl "pytorch-$torchv-1thread"
add "CARLA's Wachter (port)" env OPENBLAS_NUM_THREADS=2 "$venv/bin/python" bench/carla_wachter.py --arch "$archs" -b "$batches" -k 1 --threads 2 --factuals 20
add "DiCE (gradient)" env OPENBLAS_NUM_THREADS=2 "$venv/bin/python" bench/dice_search.py --arch "$archs" -b "$batches" -k 1 --threads 2 --factuals 5

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
raw="$build/raw-$stamp.tsv"
meta="$build/meta-$stamp.txt"
: >"$raw"
load_before="$(uptime | sed 's/.*load average: //')"
started="$(date -u '+%Y-%m-%d %H:%M UTC')"
t0=$SECONDS
for ((r = 1; r <= rounds; r++)); do
  for i in "${!names[@]}"; do
    say "round $r/$rounds: ${names[$i]} (load $(cut -d' ' -f1 /proc/loadavg))"
    if lines="$(eval "${cmds[$i]}" 2>"$build/stderr-$stamp.txt")"; then
      printf '%s\n' "$lines" | sed "s/^/$r\t/" | tee -a "$raw" | cut -f2-6 >&2
    else
      say "${names[$i]} failed:"; tail -5 "$build/stderr-$stamp.txt" >&2
    fi
  done
done
load_after="$(uptime | sed 's/.*load average: //')"

# --- the machine and the run ----------------------------------------------------------------------------
dirty=""
git diff --quiet HEAD -- eccco go.mod go.sum 2>/dev/null || dirty=" (with uncommitted changes in eccco/)"
{
  echo "date: $started, $(((SECONDS - t0) / 60)) min $(((SECONDS - t0) % 60)) s for $rounds rounds"
  echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
  echo "load average (1, 5, 15 min): $load_before before, $load_after after (the machine is shared: other jobs ran meanwhile)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$dirty"
  echo "Go: $(go env GOVERSION), GoMLX $(go list -m -f '{{.Version}}' github.com/gomlx/gomlx 2>/dev/null || echo '?'); backends: pure Go (go:ops_sequential, GOMAXPROCS=$(nproc))$([ "$xla" = 1 ] && echo ", XLA CPU ($(cat .xla/pjrt_c_api_cpu_plugin.so.pin 2>/dev/null | cut -d' ' -f1))")"
  echo "Python: $("$py" --version 2>&1 | cut -d' ' -f2) (Debian), PyTorch $torchv (Debian python3-torch, $(dpkg-query -W -f '${Version}' python3-torch 2>/dev/null || echo '?')), $blas, OMP_WAIT_POLICY=PASSIVE; dice-ml $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("dice-ml"))'), pandas $("$venv/bin/python" -c 'import pandas; print(pandas.__version__)')"
  echo "rounds: $rounds, implementations in turn in each; repeats inside a batched run: $k"
  echo "command: bench/run.sh --rounds $rounds --k $k --b $batches --arch $archs$([ "$xla" = 1 ] || echo ' --no-xla')"
  echo "raw lines: bench/.build/raw-$stamp.tsv"
} >"$meta"

{
  echo "# Speed benchmark: results"
  echo
  echo "Written by \`bench/run.sh\` (see [README.md](README.md) for what is measured). Microseconds per"
  echo "counterfactual-iteration: wall time / (factuals × 100 steps); lower is faster. The ratio columns divide"
  echo "a row's figure by PyTorch's (2 threads), CARLA's and DiCE's at the same model and B (> 1: slower)."
  echo
  "$py" "$here/report.py" --raw "$raw" --meta "$meta"
} >"$out.tmp"
mv -f "$out.tmp" "$out"
cat "$out"
say "wrote ${out#"$root"/}"
