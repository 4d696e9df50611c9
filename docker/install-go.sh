#!/usr/bin/env bash
# docker/install-go.sh — the Go module graph and the notebook tools, from go.mod and go.sum alone (no source
# yet, so a change to the Go code does not redo this): `go mod download`, then gonb and goimports at
# go.mod's tool directives and the gonb kernel inside the venv (notebooks/setup.sh --only tools,kernel).
# The third step of the Dockerfile and of .ci/docker.sh. Needs: Go, the venv of docker/install-python.sh,
# network access to the Go module proxy (or a filled module cache).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/goenv.sh

echo "install-go: go mod download ($(go version | cut -d' ' -f3))"
# Some module proxies refuse a version's .info while serving its .mod and .zip, which is all a build needs
# (seen for github.com/gomlx/compute-onnx v0.1.4): go mod download then fails after fetching everything
# else, and the build step fetches the rest. Any other failure shows up there.
if ! go mod download 2>/tmp/install-go.err; then
  sed 's/^/install-go: /' /tmp/install-go.err >&2
  echo "install-go: go mod download did not finish (above); the Go build fetches what is missing" >&2
fi
rm -f /tmp/install-go.err
notebooks/setup.sh --only tools,kernel
