#!/usr/bin/env bash
# CI for the GoNB notebooks: installs their tool chain (notebooks/setup.sh: gonb and goimports from go.mod's
# tool directives, a pinned JupyterLab/nbclient venv, the gonb kernel, all under .notebooks/; MNIST and
# Fashion-MNIST into the data directory, where they can be fetched) and executes
# every notebooks/*.ipynb headless with the quick settings (ECCCO_QUICK=1), failing on any error output,
# panic, lost display or missing figure/table (notebooks/notebooks_test.go). Executed copies and HTML copies
# land in runs/notebooks/. Exits 0 with a SKIP line only when the Python package index cannot be reached;
# every other failure fails. ECCCO_NOTEBOOKS_BROWSER=1 also runs notebooks/browser-test.sh (JupyterLab in
# headless Chromium; apt-installs chromium when root).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/goenv.sh
export ECCCO_QUICK="${ECCCO_QUICK:-1}"
start=$SECONDS

echo "== notebooks: set-up (notebooks/setup.sh)"
if ! notebooks/setup.sh; then
  # Was it the package index? Ask it for one small pinned wheel with the venv's own pip.
  py="${ECCCO_NOTEBOOKS_HOME:-$PWD/.notebooks}/venv/bin/python"
  [ -x "$py" ] || py="${PYTHON:-python3}"
  probe="$(mktemp -d)"
  if ! "$py" -m pip download -q --no-deps --no-cache-dir --disable-pip-version-check --timeout 20 --retries 1 \
      -d "$probe" "$(grep -m1 '^six==' notebooks/requirements.txt)" >/dev/null 2>&1; then
    rm -rf "$probe"
    echo "SKIP notebooks: the Python package index is unreachable, so JupyterLab and nbclient cannot be installed"
    exit 0
  fi
  rm -rf "$probe"
  echo "notebooks/setup.sh failed although the package index is reachable" >&2
  exit 1
fi
echo "   set-up: $((SECONDS - start)) s"

echo "== notebooks: execute every notebooks/*.ipynb headless (ECCCO_QUICK=$ECCCO_QUICK)"
ECCCO_NOTEBOOKS=1 go test ./notebooks -count=1 -v -timeout 60m
echo "   notebooks: $((SECONDS - start)) s in all; executed copies and HTML in runs/notebooks/"

if [ "${ECCCO_NOTEBOOKS_BROWSER:-0}" = 1 ]; then
  echo "== notebooks: browser test (JupyterLab in headless Chromium)"
  notebooks/browser-test.sh
fi
