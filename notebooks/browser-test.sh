#!/usr/bin/env bash
# notebooks/browser-test.sh [NOTEBOOK.ipynb] — a person's view of the notebooks: starts JupyterLab on
# localhost with the gonb kernel, opens the notebook (default 00-smoke.ipynb) in headless Chromium, clicks
# Run ▸ Run All Cells, waits for every cell and for the figures/tables the notebook declares
# ("eccco.expect"), fails on error outputs, and saves runs/notebooks/screenshot.png.
#
# Needs: notebooks/setup.sh (run here when needed), Node.js >= 20 with npm (playwright-core, pinned in
# notebooks/browser/package-lock.json, no browser download), Debian's chromium at /usr/bin/chromium
# (apt-installed here when missing and running as root; or set CHROMIUM). The notebook runs on a copy in
# runs/notebooks/browser/, so the committed notebook is never saved over. ECCCO_QUICK defaults to 1.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
nbname="${1:-00-smoke.ipynb}"
[ -f "notebooks/$nbname" ] || { echo "browser-test.sh: no notebooks/$nbname" >&2; exit 2; }
home="${ECCCO_NOTEBOOKS_HOME:-$root/.notebooks}"
out="$root/runs/notebooks"
shot="${ECCCO_SCREENSHOT:-$out/screenshot.png}"
export ECCCO_QUICK="${ECCCO_QUICK:-1}"
start=$SECONDS

notebooks/setup.sh --check || notebooks/setup.sh

export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "browser-test.sh: installing Debian's chromium (apt-get)"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "browser-test.sh: no Chromium at $CHROMIUM: apt-get install chromium (Debian), or set CHROMIUM" >&2
    exit 1
  fi
fi
command -v node >/dev/null || { echo "browser-test.sh: Node.js >= 20 is needed (apt-get install nodejs npm)" >&2; exit 1; }
want="$(node -p "require('./notebooks/browser/package.json').dependencies['playwright-core']")"
have="$(node -p "try { require('./notebooks/browser/node_modules/playwright-core/package.json').version } catch { '' }")"
if [ "$want" != "$have" ]; then
  echo "browser-test.sh: npm ci (playwright-core $want)"
  (cd notebooks/browser && npm ci --no-audit --no-fund --loglevel=error)
fi

# A private Jupyter: its own config, runtime, data (a copy of the gonb kernel) and settings folders, so
# neither the user's Jupyter set-up nor this run affect each other.
tmp="$(mktemp -d)"
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/data/kernels" "$tmp/settings/@jupyterlab/notebook-extension" \
  "$tmp/settings/@jupyterlab/apputils-extension" "$tmp/settings/@jupyterlab/docmanager-extension"
cp -r "$home/venv/share/jupyter/kernels/gonb" "$tmp/data/kernels/gonb"
echo '{"windowingMode": "none"}' > "$tmp/settings/@jupyterlab/notebook-extension/tracker.jupyterlab-settings"
echo '{"checkForUpdates": false, "fetchNews": "false"}' > "$tmp/settings/@jupyterlab/apputils-extension/notification.jupyterlab-settings"
echo '{"autosave": false}' > "$tmp/settings/@jupyterlab/docmanager-extension/plugin.jupyterlab-settings"

# The notebook runs on a copy inside the repository (runs/ is ignored by git), beside a copy of
# workspace.sh, which its first cell runs from the notebook's folder and which finds go.mod above it.
work="$out/browser"
rm -rf "$work" && mkdir -p "$work"
cp "notebooks/$nbname" notebooks/workspace.sh "$work/"

py="$home/venv/bin/python"
port="$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
token="$("$py" -c 'import secrets; print(secrets.token_hex(16))')"
asroot=(); [ "$(id -u)" = 0 ] && asroot=(--allow-root)
log="$out/browser-jupyter.log"
echo "browser-test.sh: JupyterLab on 127.0.0.1:$port (log: ${log#$root/})"
JUPYTER_CONFIG_DIR="$tmp/config" JUPYTER_RUNTIME_DIR="$tmp/runtime" JUPYTER_DATA_DIR="$tmp/data" \
  PATH="$home/bin:$PATH" "$home/venv/bin/jupyter" lab --no-browser \
  --ServerApp.ip=127.0.0.1 --ServerApp.port="$port" --ServerApp.port_retries=0 \
  --IdentityProvider.token="$token" --ServerApp.root_dir="$work" \
  --LabApp.user_settings_dir="$tmp/settings" --LabApp.workspaces_dir="$tmp/workspaces" \
  --LabApp.extension_manager=readonly "${asroot[@]}" >"$log" 2>&1 &
server=$!
for _ in $(seq 1 120); do
  if "$py" -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$port/api/status?token=$token', timeout=2)" 2>/dev/null; then
    break
  fi
  kill -0 "$server" 2>/dev/null || { echo "browser-test.sh: JupyterLab exited:" >&2; tail -20 "$log" >&2; exit 1; }
  sleep 0.5
done

node notebooks/browser/run.mjs --url "http://127.0.0.1:$port" --token "$token" --notebook "$nbname" \
  --file "$work/$nbname" --out "$shot" --timeout "${ECCCO_BROWSER_TIMEOUT:-900}"
echo "browser-test.sh: passed in $((SECONDS - start)) s; screenshot: ${shot#$root/}"
