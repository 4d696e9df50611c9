#!/usr/bin/env bash
# docker/build.sh — with the source in place: the eccco CLI (bin/eccco, or $ECCCO_BIN), every package built
# once (Go's build cache is then warm for reproduce.sh's own `go build` and for the notebooks), go vet, and a
# check that the notebooks' tool chain is complete (notebooks/setup.sh --check). With the XLA plugin in .xla/
# (ECCCO_WITH_XLA=1 at docker/install-python.sh) it also builds with -tags xla and gives the notebooks' kernel
# XLA (notebooks/setup.sh --only xla,kernel). The last step of the
# Dockerfile and of .ci/docker.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/goenv.sh
out="${ECCCO_BIN:-bin/eccco}"

# A .git that git cannot read (a worktree's .git file copied without its repository) would stop go build's
# VCS stamping with an error; build without the stamp then.
if [ -e .git ] && ! git rev-parse --git-dir >/dev/null 2>&1; then
  export GOFLAGS="${GOFLAGS:+$GOFLAGS }-buildvcs=false"
fi

echo "build: go build -o $out ./eccco/cmd/eccco"
mkdir -p "$(dirname "$out")"
go build -o "$out" ./eccco/cmd/eccco
echo "build: go build ./... && go vet ./..."
go build ./...
go vet ./...
if [ -f .xla/pjrt_c_api_cpu_plugin.so ] || [ -n "${ECCCO_XLA_DIR:-}" ]; then
  echo "build: go build -tags xla ./... (the XLA plugin is installed)"
  go build -tags xla ./...
  echo "build: the notebooks' kernel with XLA for the image sets (notebooks/setup.sh --only xla,kernel)"
  notebooks/setup.sh --only xla,kernel
fi
notebooks/setup.sh --check || {
  echo "build: the notebooks' tool chain is incomplete (run docker/install-python.sh and docker/install-go.sh)" >&2
  exit 1
}
"$out" backend
