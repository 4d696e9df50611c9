#!/bin/sh
# notebooks/workspace.sh — the first cell of every notebook runs this (`!*"${GONB_DIR}/workspace.sh"`):
# it points GoNB's scratch module at this repository with a go.work in GoNB's scratch folder (the cell's
# working directory under `!*`), so that cells compile against the working tree. Nothing is written into
# the repository, and nothing is printed on success.
set -e
here="$(cd "$(dirname "$0")" && pwd)"
# The project's Go settings (scripts/goenv.sh), found above this script's folder: it also runs from a copy
# inside the repository (notebooks/browser-test.sh runs one from runs/notebooks/browser/).
d="$here"
while [ "$d" != / ] && [ ! -f "$d/scripts/goenv.sh" ]; do d="$(dirname "$d")"; done
if [ -f "$d/scripts/goenv.sh" ]; then . "$d/scripts/goenv.sh"; fi
root="$(cd "$here" && dirname "$(go env GOMOD)")"
rm -f go.work
go work init
go work use . "$root"
