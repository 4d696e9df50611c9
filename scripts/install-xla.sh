#!/usr/bin/env bash
# Installs the pinned XLA PJRT CPU plugin for `go build -tags xla` / GOMLX_BACKEND=xla:cpu into the project's
# plugin folder (default: .xla/ at the repository root, gitignored; or $ECCCO_XLA_DIR). eccco/backend finds it
# there; nothing is ever downloaded when a program runs (go-xla's auto-install is switched off in
# eccco/backend/xla.go).
#
# The plugin comes from PyPI through pip (the only network access, here and nowhere else), pinned by version
# and by the wheel's SHA-256:
#
#   lammps-jax-pjrt-cpu==0.11.2: XLA's CPU PJRT plugin (pjrt_c_api_cpu_plugin.so, PJRT C API v0.115) built
#   from the XLA of jaxlib 0.11.2. go-xla v0.4.4 was tested with the CPU plugin v0.114 (PJRT C API minor
#   version), the nearest of the wheels found.
#
# Other wheels tried (see `go doc ./eccco/backend`): xla-cpu-pjrt==0.0.1 (OpenXLA's, PJRT v0.81: loads and runs,
# but much older than what go-xla v0.4.4 was built for), fastatomstruct-xla-cpu==2026.6.23 (zml's build,
# PJRT v0.106: loads and runs), jaxlib==0.10.2 (no GetPjrtApi symbol exported: not a PJRT plugin).
#
# Usage: scripts/install-xla.sh [--force]
# Needs: python3 with pip, network access to PyPI. Linux x86-64 only (the wheel is manylinux_2_27_x86_64).
# Exit status: 0 installed (or already installed), non-zero with a message on stderr otherwise.
set -euo pipefail

PKG=lammps-jax-pjrt-cpu
VERSION=0.11.2
WHEEL_SHA256=1319390d948b39f69f7dade496b7c385149d9ca6097a6b62114da113216d9ad1
MEMBER=lammps_jax_pjrt_cpu/pjrt_c_api_cpu_plugin.so
PLUGIN=pjrt_c_api_cpu_plugin.so

root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/scripts/goenv.sh"
dest="${ECCCO_XLA_DIR:-$root/.xla}"
stamp="$dest/$PLUGIN.pin"
want="$PKG==$VERSION sha256:$WHEEL_SHA256"

die() { echo "install-xla: $*" >&2; exit 1; }
. "$root/scripts/pip-wheels.sh"

if [ "${1:-}" != "--force" ] && [ -f "$dest/$PLUGIN" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  echo "install-xla: $dest/$PLUGIN already installed ($PKG==$VERSION)"
  exit 0
fi

wheels_platform "the pinned wheel $PKG==$VERSION is"
wheels_python

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "$PKG==$VERSION --hash=sha256:$WHEEL_SHA256" >"$tmp/requirements.txt"

echo "install-xla: downloading $PKG==$VERSION from PyPI (pip, hash-checked)"
wheels_download "$tmp/requirements.txt" "$tmp/wheel" "$PKG==$VERSION" --quiet --timeout 30 --retries 1
whl="$(ls "$tmp"/wheel/*.whl 2>/dev/null | head -n 1)"
[ -n "$whl" ] || die "pip reported success but left no wheel in $tmp/wheel"

mkdir -p "$dest"
"$py" - "$whl" "$MEMBER" "$dest/$PLUGIN.tmp" "$WHEEL_SHA256" <<'PY' || die "could not extract $MEMBER"
import hashlib, shutil, sys, zipfile
whl, member, out, want = sys.argv[1:]
h = hashlib.sha256()
with open(whl, "rb") as f:
    for chunk in iter(lambda: f.read(1 << 20), b""):
        h.update(chunk)
if h.hexdigest() != want:
    sys.exit(f"wheel sha256 {h.hexdigest()} != pinned {want}")
with zipfile.ZipFile(whl) as z, z.open(member) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
chmod 0755 "$dest/$PLUGIN.tmp"
mv -f "$dest/$PLUGIN.tmp" "$dest/$PLUGIN"
echo "$want" >"$stamp"
echo "install-xla: installed $dest/$PLUGIN ($PKG==$VERSION)"
echo "install-xla: use it with: GOMLX_BACKEND=xla:cpu go test -tags xla ./eccco/..."
