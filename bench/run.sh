#!/usr/bin/env bash
# The side-by-side speed benchmark of bench/ (see bench/README.md): eccco-go's batched counterfactual search
# (pure Go, and XLA CPU where it builds), hand-vectorised PyTorch (1 and 2 threads), JAX with the whole loop
# compiled (the bound), a port of CARLA's Wachter and DiCE's gradient method, on the same workload; prints the
# table of µs per counterfactual-iteration and writes it, with the machine and the load, to bench/results.md.
#
# It installs what is missing first (idempotent; each step says what it does):
#   - the Go binaries bench/.build/gosearch (pure Go) and bench/.build/gosearch-xla (-tags xla, needs cgo and
#     the XLA CPU plugin of scripts/install-xla.sh, which it runs when the plugin is absent);
#   - Debian's PyTorch (apt-get install python3-torch, when run as root; otherwise it says what to install)
#     and OpenBLAS for it (apt-get install libopenblas0-pthread);
#   - bench/.venv: a venv of Debian's python3 with --system-site-packages and bench/requirements-dice.txt;
#   - bench/.venv-jax: a venv of Debian's python3 (no system packages) with bench/requirements-jax.txt
#     (JAX on the CPU, hash-checked); without it the JAX row is left out.
# Then it runs the implementations in turn, A B C … A B C …, for --rounds rounds, so that a change in the
# machine's load falls on all of them alike. Each figure is the median over the rounds.
#
# Usage: bench/run.sh [--rounds N] [--k K] [--b 100,1000,10000] [--b-go 100,1000] [--arch mnist,california]
#                     [--clock wall|cpu] [--no-xla] [--no-jax] [--quick] [--no-install] [--out FILE]
#   --rounds N  rounds of every implementation (default 2)
#   --k K       repeats inside each batched run (default 2; 1 at B >= 10,000; the per-factual ones time
#               their factuals once)
#   --b LIST    batch sizes of the batched implementations (default 100,1000,10000)
#   --b-go LIST batch sizes of eccco-go's pure-Go rows and of the `Search` rows, which compile in every call
#               (default 100,1000: pure Go's MNIST search at B = 10,000 takes about a minute)
#   --clock C   wall (default): elapsed time; cpu: each process's CPU time (user + system, all threads),
#               steadier on a machine that other jobs keep busy, where it measures the work, not the
#               latency (threads that spin while they wait count too)
#   --quick     --rounds 1 --k 1 --b 100 --b-go 100 (a check that everything runs)
#   --no-xla    leave eccco-go on XLA out
#   --no-jax    leave JAX out
#   --no-install  install nothing; fail when something is missing
#   --out FILE  where the table goes (default bench/results.md)
# Environment: ECCCO_BENCH_PYTHON (default /usr/bin/python3, Debian's, which sees python3-torch);
#   GOSEARCH_BIN, GOSEARCH_XLA_BIN: eccco-go's binaries (built from bench/gosearch, the second with -tags xla)
#   to time instead of building them from this checkout, e.g. another commit's.
# Each round records `uptime` before and after it (in the results' "Machine and run").
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"
. scripts/goenv.sh

rounds=2 k=2 batches=100,1000,10000 gobatches=100,1000 archs=mnist,california clock=wall xla=1 jax=1 install=1
out="$here/results.md"
while [ $# -gt 0 ]; do
  case "$1" in
  --rounds) rounds="$2"; shift 2 ;;
  --k) k="$2"; shift 2 ;;
  --b) batches="$2"; shift 2 ;;
  --b-go) gobatches="$2"; shift 2 ;;
  --arch) archs="$2"; shift 2 ;;
  --clock) clock="$2"; shift 2 ;;
  --no-xla) xla=0; shift ;;
  --no-jax) jax=0; shift ;;
  --quick) rounds=1 k=1 batches=100 gobatches=100; shift ;;
  --no-install) install=0; shift ;;
  --out) out="$2"; shift 2 ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

case "$clock" in wall | cpu) ;; *) echo "run.sh: --clock must be wall or cpu, not '$clock'" >&2; exit 2 ;; esac
py="${ECCCO_BENCH_PYTHON:-/usr/bin/python3}"
build="$here/.build"
venv="$here/.venv"
mkdir -p "$build"
say() { echo "bench: $*" >&2; }
die() { echo "bench: $*" >&2; exit 1; }

# --- install what is missing ------------------------------------------------------------------------------
gosearch="${GOSEARCH_BIN:-$build/gosearch}"
gosearch_xla="${GOSEARCH_XLA_BIN:-$build/gosearch-xla}"
if [ -n "${GOSEARCH_BIN:-}" ]; then
  [ -x "$gosearch" ] || die "GOSEARCH_BIN=$gosearch is not an executable"
  say "eccco-go (pure Go): $gosearch (GOSEARCH_BIN)"
else
  say "building bench/.build/gosearch (pure Go)"
  go build -o "$gosearch" ./bench/gosearch
fi

if [ "$xla" = 1 ]; then
  if ! command -v "${CC:-gcc}" >/dev/null 2>&1 && ! command -v cc >/dev/null 2>&1; then
    say "no C compiler: eccco-go on XLA (-tags xla needs cgo) left out"; xla=0
  elif [ "$install" = 1 ] && ! scripts/install-xla.sh >&2; then
    say "the XLA CPU plugin could not be installed: eccco-go on XLA left out"; xla=0
  elif [ -n "${GOSEARCH_XLA_BIN:-}" ]; then
    say "eccco-go (XLA CPU): $gosearch_xla (GOSEARCH_XLA_BIN)"
  elif ! CGO_ENABLED=1 go build -tags xla -o "$gosearch_xla" ./bench/gosearch; then
    say "go build -tags xla failed: eccco-go on XLA left out"; xla=0
  fi
  if [ "$xla" = 1 ] && ! GOMLX_BACKEND=xla:cpu "$gosearch_xla" -arch california -b 1 -k 1 >/dev/null; then
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

# JAX from PyPI in a venv of its own: it brings NumPy 2, which Debian's torch 1.13 cannot read.
jreq="$here/requirements-jax.txt"
jvenv="$here/.venv-jax"
if [ "$jax" = 1 ]; then
  jwant="$(sha256sum "$jreq" | cut -c1-64) $("$py" --version 2>&1)"
  if [ "$(cat "$jvenv/.pinned" 2>/dev/null)" != "$jwant" ]; then
    if [ "$install" = 1 ]; then
      say "making bench/.venv-jax (Debian's python3) with bench/requirements-jax.txt (hash-checked)"
      rm -rf "$jvenv"
      if "$py" -m venv "$jvenv" && "$jvenv/bin/python" -m pip install --quiet --disable-pip-version-check \
        --require-hashes --only-binary=:all: -r "$jreq" >&2; then
        echo "$jwant" >"$jvenv/.pinned"
      else
        say "bench/requirements-jax.txt could not be installed (its wheels are for CPython 3.11, Linux x86-64): JAX left out"; jax=0
      fi
    else
      die "bench/.venv-jax is missing or out of date (run without --no-install, or with --no-jax)"
    fi
  fi
fi

# --- the implementations, in the order of each round ----------------------------------------------------
# PyTorch's OpenMP threads spin while they wait; on a machine whose cores are busy with other work that
# makes 2 threads 4-18 times slower than 1 (measured here under a load of 10 on 2 cores). OMP_WAIT_POLICY=PASSIVE
# lets them sleep instead, for every Python implementation alike.
export OMP_WAIT_POLICY=PASSIVE
torchv="$(dpkg-query -W -f '${Version}' python3-torch 2>/dev/null | sed 's/+.*//')"
[ -n "$torchv" ] || torchv="$("$py" -c 'import torch; print(torch.__version__.split("+")[0])')"
names=() cmds=()
add() { names+=("$1"); shift; cmds+=("$(printf '%q ' "$@")"); }
# batched NAME LIST CMD...: a batched implementation at the batch sizes of LIST, those below 10,000 with -k K
# repeats, the others (a search of seconds to a minute each) with one.
batched() {
  local name="$1" list="$2" small large
  shift 2
  small="$(tr ',' '\n' <<<"$list" | awk 'NF && $1 < 10000' | paste -sd, -)"
  large="$(tr ',' '\n' <<<"$list" | awk 'NF && $1 >= 10000' | paste -sd, -)"
  if [ -n "$small" ]; then add "$name" "$@" -b "$small" -k "$k"; fi
  if [ -n "$large" ]; then add "$name, B = $large" "$@" -b "$large" -k 1; fi
}
batched "eccco-go (pure Go)" "$gobatches" "$gosearch" -arch "$archs" -clock "$clock" -impl "eccco-go/go"
batched "eccco-go (pure Go, Searcher)" "$gobatches" "$gosearch" -arch "$archs" -clock "$clock" -searcher -impl "eccco-go/go+Searcher"
if [ "$xla" = 1 ]; then
  # The steady-state step at XLA's default optimisation level 2 (eccco's own default is 1, which compiles
  # several times faster and wins over a whole benchmark, but its step was up to 1.5 × slower here on the
  # MNIST MLP; see go doc ./eccco/backend). A level in the caller's XLA_FLAGS is kept; eccco/backend adds
  # its other CPU flags unless XLA_FLAGS names them.
  xlaflags="${XLA_FLAGS:---xla_backend_optimization_level=2}"
  batched "eccco-go (XLA CPU)" "$gobatches" env GOMLX_BACKEND=xla:cpu XLA_FLAGS="$xlaflags" "$gosearch_xla" -arch "$archs" -clock "$clock" -impl "eccco-go/xla:cpu"
  batched "eccco-go (XLA CPU, Searcher)" "$batches" env GOMLX_BACKEND=xla:cpu XLA_FLAGS="$xlaflags" "$gosearch_xla" -arch "$archs" -clock "$clock" -searcher -impl "eccco-go/xla:cpu+Searcher"
fi
batched "PyTorch, 2 threads" "$batches" env OPENBLAS_NUM_THREADS=2 "$py" bench/torch_search.py --arch "$archs" --clock "$clock" --threads 2 --impl "pytorch-$torchv"
batched "PyTorch, 1 thread" "$batches" env OPENBLAS_NUM_THREADS=1 "$py" bench/torch_search.py --arch "$archs" --clock "$clock" --threads 1 --impl "pytorch-$torchv-1thread"
if [ "$jax" = 1 ]; then
  jaxv="$("$jvenv/bin/python" -c 'import importlib.metadata as m; print(m.version("jax"))')"
  batched "JAX, loop compiled" "$batches" "$jvenv/bin/python" bench/jax_search.py --arch "$archs" --clock "$clock" --impl "jax-$jaxv"
fi
add "CARLA's Wachter (port)" env OPENBLAS_NUM_THREADS=2 "$venv/bin/python" bench/carla_wachter.py --arch "$archs" --clock "$clock" -b "$batches" -k 1 --threads 2 --factuals 20
add "DiCE (gradient)" env OPENBLAS_NUM_THREADS=2 "$venv/bin/python" bench/dice_search.py --arch "$archs" --clock "$clock" -b "$batches" -k 1 --threads 2 --factuals 5

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
raw="$build/raw-$stamp.tsv"
meta="$build/meta-$stamp.txt"
: >"$raw"
load_before="$(uptime | sed 's/.*load average: //')"
started="$(date -u '+%Y-%m-%d %H:%M UTC')"
t0=$SECONDS
round_loads=()
for ((r = 1; r <= rounds; r++)); do
  before="$(uptime | sed 's/.*load average: //')" rt0=$SECONDS
  for i in "${!names[@]}"; do
    say "round $r/$rounds: ${names[$i]} (load $(cut -d' ' -f1 /proc/loadavg))"
    if lines="$(eval "${cmds[$i]}" 2>"$build/stderr-$stamp.txt")"; then
      printf '%s\n' "$lines" | sed "s/^/$r\t/" | tee -a "$raw" | cut -f2-6 >&2
    else
      say "${names[$i]} failed:"; tail -5 "$build/stderr-$stamp.txt" >&2
    fi
  done
  round_loads+=("round $r: $before before, $(uptime | sed 's/.*load average: //') after ($((SECONDS - rt0)) s)")
done
load_after="$(uptime | sed 's/.*load average: //')"

# --- the machine and the run ----------------------------------------------------------------------------
dirty=""
git diff --quiet HEAD -- eccco go.mod go.sum 2>/dev/null || dirty=" (with uncommitted changes in eccco/)"
{
  echo "date: $started, $(((SECONDS - t0) / 60)) min $(((SECONDS - t0) % 60)) s for $rounds rounds"
  echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
  echo "load average (1, 5, 15 min): $load_before before, $load_after after (the machine is shared: other jobs ran meanwhile)"
  echo "load average of each round (1, 5, 15 min): $(IFS=';'; echo "${round_loads[*]}" | sed 's/;/; /g')"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$dirty"
  echo "Go: $(go env GOVERSION), GoMLX $(go list -m -f '{{.Version}}' github.com/gomlx/gomlx 2>/dev/null || echo '?'); backends: pure Go (go:ops_sequential, GOMAXPROCS=$(nproc))$([ "$xla" = 1 ] && echo ", XLA CPU ($(cat .xla/pjrt_c_api_cpu_plugin.so.pin 2>/dev/null | cut -d' ' -f1))")"
  echo "Python: $("$py" --version 2>&1 | cut -d' ' -f2) (Debian), PyTorch $torchv (Debian python3-torch, $(dpkg-query -W -f '${Version}' python3-torch 2>/dev/null || echo '?')), $blas, OMP_WAIT_POLICY=PASSIVE; dice-ml $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("dice-ml"))'), pandas $("$venv/bin/python" -c 'import pandas; print(pandas.__version__)')"
  echo "clock: $([ "$clock" = cpu ] && echo "cpu: each process's CPU time (user + system, all its threads), not wall time" || echo "wall: elapsed time")"
  echo "rounds: $rounds, implementations in turn in each; repeats inside a batched run: $k (1 at B ≥ 10,000)"
  [ "$jax" = 1 ] && echo "JAX: jax $jaxv, jaxlib $("$jvenv/bin/python" -c 'import importlib.metadata as m; print(m.version("jaxlib"))') (PyPI, bench/requirements-jax.txt), CPU"
  [ -n "${GOSEARCH_BIN:-}${GOSEARCH_XLA_BIN:-}" ] && echo "eccco-go binaries: ${GOSEARCH_BIN:-built from the commit}, ${GOSEARCH_XLA_BIN:-built from the commit}"
  echo "XLA_FLAGS of the XLA rows: $([ "$xla" = 1 ] && echo "$xlaflags" || echo '-')"
  echo "command: bench/run.sh --rounds $rounds --k $k --b $batches --b-go $gobatches --arch $archs --clock $clock$([ "$xla" = 1 ] || echo ' --no-xla')$([ "$jax" = 1 ] || echo ' --no-jax')"
  echo "raw lines: bench/.build/raw-$stamp.tsv"
} >"$meta"

{
  echo "# Speed benchmark: results"
  echo
  echo "Written by \`bench/run.sh\` (see [README.md](README.md) for what is measured). Microseconds per"
  echo "counterfactual-iteration: $([ "$clock" = cpu ] && echo "CPU time (user + system, all threads)" || echo "wall time") / (factuals × 100 steps); lower is faster. The ratio columns divide"
  echo "a row's figure by PyTorch's (the better of its 1- and 2-thread rows), JAX's (the whole loop compiled: the"
  echo "bound), CARLA's and DiCE's at the same model and B (> 1: slower)."
  echo
  "$py" "$here/report.py" --raw "$raw" --meta "$meta"
} >"$out.tmp"
mv -f "$out.tmp" "$out"
cat "$out"
say "wrote ${out#"$root"/}"
