#!/usr/bin/env bash
# docker/install-python.sh — the Python side, before any Go code: the notebooks' JupyterLab venv at
# notebooks/requirements.txt's exact pins, made by notebooks/setup.sh itself (`--only venv`, into
# .notebooks/venv or $ECCCO_NOTEBOOKS_HOME/venv), and, with ECCCO_WITH_XLA=1, the pinned XLA PJRT CPU plugin
# (scripts/install-xla.sh, into .xla/). The second step of the Dockerfile and of .ci/docker.sh.
# Needs: docker/install-system.sh's packages (python3-venv, python3-pip), network access to PyPI.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

notebooks/setup.sh --only venv
if [ "${ECCCO_WITH_XLA:-0}" = 1 ]; then
  scripts/install-xla.sh
else
  echo "install-python: XLA CPU plugin not installed (ECCCO_WITH_XLA=1, or docker build --build-arg WITH_XLA=1, installs it)"
fi
