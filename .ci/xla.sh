#!/usr/bin/env bash
# XLA CPU checks for CI, called from .ci/run: installs the pinned PJRT CPU plugin with scripts/install-xla.sh
# (from PyPI, into .xla/) and runs eccco's GoMLX tests on it (binaries built with -tags xla,
# GOMLX_BACKEND=xla:cpu). Needs Go, a C compiler (cgo), Python 3 with pip; takes about 3 minutes on 2 cores.
#
# If the plugin cannot be installed (PyPI unreachable, another platform, no pip, no C compiler) it prints why
# and a SKIP line and exits 0. Once the plugin is installed, any failing test fails this script.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/goenv.sh

# The packages whose tests run GoMLX graphs (the rest run none, or only data handling).
packages=(./eccco/backend ./eccco/models ./eccco/vae ./eccco/energy ./eccco/conformal ./eccco/counterfactual ./eccco/metrics)

skip() {
  echo "$*"
  echo "SKIP: XLA tests not run (the pure-Go tests above still ran)"
  exit 0
}

echo "== XLA (CPU): install the pinned PJRT plugin"
cc="${CC:-gcc}"
command -v "$cc" >/dev/null 2>&1 || command -v cc >/dev/null 2>&1 ||
  skip "no C compiler ($cc or cc): -tags xla needs cgo"
# Bounded: a PyPI that never answers must not hold CI up (a normal install takes seconds).
if ! install_log="$(timeout 300 scripts/install-xla.sh 2>&1)"; then
  skip "$install_log
scripts/install-xla.sh failed: the XLA PJRT CPU plugin could not be installed"
fi
echo "$install_log"

echo "== XLA (CPU): go vet -tags xla, then tests with GOMLX_BACKEND=xla:cpu"
export CGO_ENABLED=1
go vet -tags xla ./eccco/backend
GOMLX_BACKEND=xla:cpu go test -tags xla -count=1 -timeout 20m "${packages[@]}"
# The experiment layer's graphs kept across runs (ECCCo-L1's samples fed to a kept search) on XLA too.
GOMLX_BACKEND=xla:cpu go test -tags xla -count=1 -timeout 10m -run 'TestRunsShareCompiledGraphs' ./eccco/experiment

echo "== XLA (CPU): eccco bench --image-backend xla:cpu (images on XLA, the rest on pure Go, as reproduce.sh runs them)"
go build -tags xla -o bin/eccco-xla ./eccco/cmd/eccco
smoke="$(mktemp -d)"
trap 'rm -rf "$smoke"' EXIT
data=moons
if bin/eccco-xla data list 2>/dev/null | grep -q '^ *mnist .*yes'; then data=moons,mnist; fi
bin/eccco-xla bench --data "$data" --models mlp --generators Wachter,ECCCo --runs 1 --factuals 3 --set epochs=1 \
  --mode authors-code --image-backend xla:cpu --models-dir "$smoke/models" --out "$smoke/bench" >"$smoke/log" 2>&1 ||
  { cat "$smoke/log"; exit 1; }
grep -q '"Go Backend"' "$smoke/bench/units/moons/experiment.json" || { echo "moons did not run on pure Go"; cat "$smoke/bench/units/moons/experiment.json"; exit 1; }
if [ "$data" = moons,mnist ]; then
  grep -q '"xla"' "$smoke/bench/units/mnist/experiment.json" || { echo "mnist did not run on XLA"; cat "$smoke/bench/units/mnist/experiment.json"; exit 1; }
  echo "moons ran on pure Go, mnist on XLA"
else
  echo "(MNIST is not fetched here: only moons checked)"
fi
echo "== XLA (CPU): eccco bench --tabular-backend xla:cpu (moons on XLA; two runs share each model's graphs)"
bin/eccco-xla bench --data moons --models mlp --generators Wachter,ECCCo-L1 --runs 2 --factuals 3 --set epochs=1 \
  --mode authors-code --tabular-backend xla:cpu --models-dir "$smoke/models" --out "$smoke/bench-tab" >"$smoke/log" 2>&1 ||
  { cat "$smoke/log"; exit 1; }
grep -q '"xla"' "$smoke/bench-tab/units/moons/experiment.json" || { echo "moons did not run on XLA"; cat "$smoke/bench-tab/units/moons/experiment.json"; exit 1; }
echo "moons ran on XLA with --tabular-backend"
echo "== XLA (CPU): passed"
