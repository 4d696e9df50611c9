#!/bin/sh
# notebooks/workspace.sh — the first cell of every notebook runs this (`!*"${GONB_DIR}/workspace.sh"`):
# it points GoNB's scratch module at this repository with a go.work in GoNB's scratch folder (the cell's
# working directory under `!*`), so that cells compile against the working tree. Nothing is written into
# the repository, and nothing is printed on success.
set -e
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../scripts/goenv.sh"
root="$(cd "$here" && dirname "$(go env GOMOD)")"
rm -f go.work
go work init
go work use . "$root"
