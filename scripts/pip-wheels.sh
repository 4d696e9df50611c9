# pip-wheels.sh: what scripts/install-xla.sh and scripts/install-xla-cuda.sh share, sourced by both: the
# platform and pip checks and a hash-checked download of pinned wheels. The sourcing script defines
# die MESSAGE (print, exit non-zero) first.

# wheels_platform WHAT: dies unless this is Linux x86-64, the only platform of the pinned wheels (WHAT).
wheels_platform() {
  [ "$(uname -s)" = Linux ] && [ "$(uname -m)" = x86_64 ] ||
    die "$1 for Linux x86-64 only, this is $(uname -s) $(uname -m)"
}

# wheels_python: sets py to a Python that runs pip, or dies saying which is missing.
wheels_python() {
  py="$(command -v python3 || command -v python || true)"
  [ -n "$py" ] || die "python3 is needed (to run pip)"
  "$py" -m pip --version >/dev/null 2>&1 || die "pip is needed: $py -m pip does not run"
}

# wheels_download REQUIREMENTS DEST WHAT [PIP-ARGS...]: downloads the wheels pinned (name==version
# --hash=sha256:…) in the file REQUIREMENTS into DEST, binaries only, without dependencies, every hash
# checked by pip; on failure prints pip's log and dies naming WHAT.
wheels_download() {
  local req="$1" dest="$2" what="$3"
  shift 3
  if ! "$py" -m pip download --disable-pip-version-check --no-deps --only-binary=:all: "$@" \
    --require-hashes -r "$req" -d "$dest" >"$dest.log" 2>&1; then
    cat "$dest.log" >&2
    die "pip could not download $what (is PyPI reachable?)"
  fi
}
