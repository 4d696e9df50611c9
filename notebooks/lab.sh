#!/usr/bin/env bash
# notebooks/lab.sh — JupyterLab on notebooks/ with the Go (gonb) kernel that notebooks/setup.sh installed.
# Extra arguments go to `jupyter lab` (e.g. --port 8899, --no-browser). ECCCO_QUICK=1 notebooks/lab.sh makes
# the notebooks use their quick settings (small models, few epochs); without it they use the paper's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$root/scripts/goenv.sh" # the GoNB kernel builds each cell with it
home="${ECCCO_NOTEBOOKS_HOME:-$root/.notebooks}"
"$root/notebooks/setup.sh" --check || {
  echo "notebooks/lab.sh: the notebook tools are missing or out of date; running notebooks/setup.sh first"
  "$root/notebooks/setup.sh"
}
export PATH="$home/bin:$PATH"
# JUPYTER_PATH comes first in Jupyter's search: this venv's gonb kernel wins over any other "gonb" the user
# has installed, and the user's other kernels stay listed.
export JUPYTER_PATH="$home/venv/share/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"
asroot=(); [ "$(id -u)" = 0 ] && asroot=(--allow-root)  # Jupyter refuses root without it (containers, CI)
cd "$root/notebooks"
exec "$home/venv/bin/jupyter" lab --ServerApp.root_dir="$root/notebooks" "${asroot[@]}" "$@"
