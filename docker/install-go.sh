#!/usr/bin/env bash
# docker/install-go.sh — the Go module graph and the notebook tools, from go.mod and go.sum alone (no source
# yet, so a change to the Go code does not redo this): `go mod download`, then gonb and goimports at
# go.mod's tool directives and the gonb kernel inside the venv (notebooks/setup.sh --only tools,kernel).
# The third step of the Dockerfile and of .ci/docker.sh. Needs: Go, the venv of docker/install-python.sh,
# network access to the Go module proxy (or a filled module cache).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

echo "install-go: go mod download ($(go version | cut -d' ' -f3))"
go mod download
notebooks/setup.sh --only tools,kernel
