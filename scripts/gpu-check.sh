#!/usr/bin/env bash
# The GPU checks: eccco-go on XLA CUDA (GOMLX_BACKEND=xla:cuda) on a machine with an NVIDIA GPU.
#
#   1. the CUDA PJRT plugin: scripts/install-xla-cuda.sh (the pinned CUDA 12 wheels) where it is not
#      installed yet, or --link-jax to use the plugin of a jax with CUDA that is already installed
#      (--link-jax, for a machine without network);
#   2. `eccco backend` on xla:cuda (does the plugin load and see the GPU?);
#   3. the speed benchmark's workload (bench/README.md) on the GPU: eccco-go's Searcher on xla:cuda against
#      hand-vectorised PyTorch on the same GPU (when a python3 with torch and CUDA is there), B = 100, 1,000
#      and 10,000, and, for scale, both on the machine's CPU;
#   4. training in chunks of minibatches per graph call against one per call on xla:cuda (the
#      BenchmarkTrainChunks of models, vae and energy: an MNIST-sized MLP, 5 epochs, and the MNIST VAE, 2
#      epochs, in chunks of 10; the MNIST JEM, 1 epoch, in chunks of 4; whole trainings alternated), into
#      train.txt;
#   5. the GoMLX packages' tests on xla:cuda (the subset .ci/xla.sh runs on xla:cpu), side by side, each under
#      a time limit.
#
# Everything it prints also goes to OUT: gpu.txt (the GPU and software), backend.txt, speed.tsv (the lines of
# bench/gosearch and bench/torch_search.py, round first), results-gpu.md (their table, by bench/report.py;
# bench/results-gpu.md is one), test-<package>.log and tests.txt (one PASS/FAIL/TIMEOUT line each).
#
# Usage: scripts/gpu-check.sh [--bin DIR] [--out DIR] [--link-jax PYTHON] [--test-timeout SECONDS] [--no-tests]
#   --bin DIR   binaries built beforehand (a machine without Go): DIR/eccco and DIR/gosearch built with
#               `go build -tags xla`, DIR/<package>.test built with `go test -c -tags xla` (see --build);
#               default: build them here into bin/gpu-check (needs Go and a C compiler)
#   --build DIR only build the binaries into DIR and stop (on a machine with Go, for one without)
#   --out DIR   where the logs go, an empty or new folder (default runs/gpu-check/<UTC date-time>)
#   --link-jax PYTHON  link the CUDA plugin of the jax that PYTHON imports (scripts/install-xla-cuda.sh
#               --link-jax) instead of installing the pinned wheels
#   --test-timeout S  time limit of each package's tests (default 420)
#   --no-tests  skip step 5
set -uo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
. scripts/goenv.sh

packages=(backend models vae energy conformal counterfactual metrics experiment)
bin="" out="runs/gpu-check/$(date -u +%Y%m%d-%H%M%S)" link="" test_timeout=420 tests=1 build_only=""
while [ $# -gt 0 ]; do
  case "$1" in
  --bin) bin="$2"; shift 2 ;;
  --build) build_only="$2"; shift 2 ;;
  --out) out="$2"; shift 2 ;;
  --link-jax) link="$2"; shift 2 ;;
  --test-timeout) test_timeout="$2"; shift 2 ;;
  --no-tests) tests=0; shift ;;
  -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "gpu-check: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

build() { # build DIR: the binaries the checks run
  local dir="$1"
  mkdir -p "$dir"
  export CGO_ENABLED=1
  go build -tags xla -ldflags='-s -w' -o "$dir/eccco" ./eccco/cmd/eccco &&
    go build -tags xla -ldflags='-s -w' -o "$dir/gosearch" ./bench/gosearch || return 1
  for p in "${packages[@]}"; do
    go test -c -tags xla -ldflags='-s -w' -o "$dir/$p.test" "./eccco/$p" || return 1
  done
}
if [ -n "$build_only" ]; then
  build "$build_only" && echo "gpu-check: binaries in $build_only"
  exit
fi
if [ -z "$bin" ]; then
  bin="$root/bin/gpu-check"
  echo "== building the binaries into $bin"
  build "$bin" || { echo "gpu-check: build failed" >&2; exit 1; }
fi
bin="$(cd "$bin" && pwd)"
# Never write over an earlier check's logs.
if [ -d "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
  echo "gpu-check: $out is not empty (an earlier check's logs?); give another --out" >&2
  exit 2
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"

echo "== the GPU and the software" | tee "$out/gpu.txt"
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 || echo "nvidia-smi failed"
  nproc | sed 's/^/CPU cores: /'
  uname -srm
  py="${link:-python3}"
  "$py" -c 'import jax, jaxlib; print("jax", jax.__version__, "jaxlib", jaxlib.__version__)' 2>/dev/null || true
  "$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.is_available())' 2>/dev/null || true
} 2>&1 | tee -a "$out/gpu.txt"

echo "== the CUDA PJRT plugin"
if [ -n "$link" ]; then
  scripts/install-xla-cuda.sh --link-jax "$link" || exit 1
else
  scripts/install-xla-cuda.sh || exit 1
fi

echo "== eccco backend on xla:cuda"
export GOMLX_BACKEND=xla:cuda
if ! "$bin/eccco" backend 2>&1 | tee "$out/backend.txt"; then
  echo "gpu-check: the XLA CUDA backend did not start (see above and $out/backend.txt)" >&2
  exit 1
fi

echo "== speed: µs per counterfactual-iteration (bench/README.md's workload)"
raw="$out/speed.tsv"
: >"$raw"
speed() { # speed ROUND COMMAND...: runs one implementation, shows its lines and keeps them for the table
  local r="$1"
  shift
  timeout 300 "$@" 2>&1 | tee /dev/stderr | awk -F'\t' -v r="$r" 'NF >= 8 { print r "\t" $0 }' >>"$raw"
}
torch_py="${ECCCO_BENCH_PYTHON:-${link:-python3}}"
has_torch=0 has_torch_cuda=0
"$torch_py" -c 'import torch' 2>/dev/null && has_torch=1
"$torch_py" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null && has_torch_cuda=1
[ "$has_torch_cuda" = 1 ] || echo "(no PyTorch with CUDA in $torch_py: the PyTorch GPU rows are left out)"
cores="$(nproc)"
for round in 1 2 3; do
  GOMLX_BACKEND=xla:cuda speed "$round" "$bin/gosearch" -searcher -b 100,1000,10000 -k 3
  if [ "$has_torch_cuda" = 1 ]; then
    speed "$round" "$torch_py" bench/torch_search.py --device cuda -b 100,1000,10000 -k 3
  fi
done
# For scale, the same machine's CPU (one round: these are not the figures of bench/results.md's machine).
GOMLX_BACKEND=go speed 1 "$bin/gosearch" -searcher -b 100,1000 -k 1 -impl "eccco-go/go+Searcher ($cores cores)"
if [ "$has_torch" = 1 ]; then
  speed 1 "$torch_py" bench/torch_search.py --threads "$cores" -b 100,1000 -k 1 --impl "pytorch-cpu ($cores threads)"
fi
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "GPU: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
  echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $cores cores"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "eccco-go: $(sed -n 's/^running: *//p' "$out/backend.txt" | head -n 1)"
  echo "PyTorch: $("$torch_py" -c 'import torch; print(torch.__version__)' 2>/dev/null || echo none)"
  echo "rounds: 3 on the GPU (each figure the median of 3 repeats, then of the rounds), 1 on the CPU"
} >"$out/meta.txt"
python3 bench/report.py --raw "$raw" --meta "$out/meta.txt" >"$out/results-gpu.md" && cat "$out/results-gpu.md"

echo "== training: chunks of minibatches per call against one per call (BenchmarkTrainChunks)"
: >"$out/train.txt"
for p in models vae energy; do
  if [ -x "$bin/$p.test" ]; then
    (cd "eccco/$p" && GOMLX_BACKEND=xla:cuda timeout 300 "$bin/$p.test" -test.run '^$' \
      -test.bench TrainChunks -test.benchtime 3x 2>&1) | tee -a "$out/train.txt"
  else
    echo "no $bin/$p.test" | tee -a "$out/train.txt"
  fi
done

if [ "$tests" = 1 ]; then
  echo "== tests on xla:cuda, each package under ${test_timeout} s, side by side"
  for p in "${packages[@]}"; do
    [ -x "$bin/$p.test" ] || { echo "$p: no $bin/$p.test" >>"$out/tests.txt"; continue; }
    (
      cd "eccco/$p" || exit 1
      start=$SECONDS
      timeout "$test_timeout" "$bin/$p.test" -test.count=1 -test.timeout "$((test_timeout + 60))s" >"$out/test-$p.log" 2>&1
      rc=$?
      verdict=FAIL
      [ $rc = 0 ] && verdict=PASS
      [ $rc = 124 ] && verdict=TIMEOUT
      echo "$verdict $p ($((SECONDS - start)) s, exit $rc)" >>"$out/tests.txt"
    ) &
  done
  wait
  sort "$out/tests.txt" | tee "$out/tests.sorted" && mv "$out/tests.sorted" "$out/tests.txt"
  grep -h -E '^(--- FAIL|FAIL|panic)' "$out"/test-*.log | head -40
fi
echo "== gpu-check: done; logs in $out"
