#!/usr/bin/env bash
# docker/install-python.sh — the Python side, before any Go code: the notebooks' JupyterLab venv at
# notebooks/requirements.txt's exact pins, made by notebooks/setup.sh itself (`--only venv`, into
# .notebooks/venv or $ECCCO_NOTEBOOKS_HOME/venv), and, with ECCCO_WITH_XLA=1, the pinned XLA PJRT CPU plugin
# (scripts/install-xla.sh, into .xla/). The second step of the Dockerfile and of .ci/docker.sh.
# A venv made here (none yet) on CPython 3.11 for Linux x86-64 (Debian 12's, the image's) is first filled
# from docker/requirements-hashes.txt with pip --require-hashes: the same pins, each wheel checked by its
# SHA-256; setup.sh then finds every requirement satisfied. Elsewhere setup.sh installs by version pins alone.
# Needs: docker/install-system.sh's packages (python3-venv, python3-pip), network access to PyPI.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

venv="${ECCCO_NOTEBOOKS_HOME:-$PWD/.notebooks}/venv"
py="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
  if [ "$("$py" -c 'import platform, sys; print(sys.implementation.name, "%d.%d" % sys.version_info[:2], platform.system(), platform.machine())' 2>/dev/null)" = "cpython 3.11 Linux x86_64" ]; then
    echo "install-python: creating $venv; docker/requirements-hashes.txt with --require-hashes"
    "$py" -m venv "$venv"
    "$venv/bin/python" -m pip install --disable-pip-version-check -q --retries 2 --timeout 60 \
      --require-hashes --only-binary=:all: --no-deps -r docker/requirements-hashes.txt
  else
    echo "install-python: $("$py" --version 2>&1) on $(uname -s) $(uname -m): docker/requirements-hashes.txt is for CPython 3.11 on Linux x86-64; version pins alone"
  fi
fi
notebooks/setup.sh --only venv
if [ "${ECCCO_WITH_XLA:-0}" = 1 ]; then
  scripts/install-xla.sh
else
  echo "install-python: XLA CPU plugin not installed (ECCCO_WITH_XLA=1, or docker build --build-arg WITH_XLA=1, installs it)"
fi
