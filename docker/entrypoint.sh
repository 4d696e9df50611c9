#!/usr/bin/env bash
# docker/entrypoint.sh — the image's entry point: `docker run … eccco-go [COMMAND] [ARGS…]`
#
#   (nothing), --quick, --mode M, --help   ./reproduce.sh with these arguments, headless (the default)
#   reproduce [ARGS…]                      the same, spelled out
#   lab [ARGS…]                            JupyterLab on notebooks/ with the Go (gonb) kernel, listening on
#                                          ${ECCCO_LAB_IP:-0.0.0.0}:${ECCCO_LAB_PORT:-8888}; ARGS go to `jupyter lab`.
#                                          Token: $JUPYTER_TOKEN (Jupyter's own variable); unset, Jupyter makes a
#                                          random one and prints the URL with it. ECCCO_QUICK=1: quick settings.
#   eccco [ARGS…]                          the eccco command-line tool (bin/eccco, rebuilt when the source changed)
#   help                                   this text
#   anything else                          run as a command, e.g. `docker run -it eccco-go bash`
#
# Outside Docker it does the same in the checkout it lives in (.ci/docker.sh tests it there).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/goenv.sh

# See docker/build.sh: build without VCS stamping when git cannot read .git.
if [ -e .git ] && ! git rev-parse --git-dir >/dev/null 2>&1; then
  export GOFLAGS="${GOFLAGS:+$GOFLAGS }-buildvcs=false"
fi

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; }

case "${1:-}" in
  ""|-*)
    if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
      ./reproduce.sh --help
      echo
      usage
      exit 0
    fi
    exec ./reproduce.sh "$@" ;;
  reproduce) shift; exec ./reproduce.sh "$@" ;;
  lab)
    shift
    exec notebooks/lab.sh --ip="${ECCCO_LAB_IP:-0.0.0.0}" --port="${ECCCO_LAB_PORT:-8888}" --no-browser "$@" ;;
  eccco)
    shift
    go build -o bin/eccco ./eccco/cmd/eccco
    exec bin/eccco "$@" ;;
  help) usage ;;
  *) exec "$@" ;;
esac
