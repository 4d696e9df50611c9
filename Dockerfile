# eccco-go in a container: ./reproduce.sh headless (the default), or JupyterLab with the GoNB kernel (`lab`).
#
#   docker build -t eccco-go .                          # --build-arg WITH_XLA=1 adds the XLA CPU plugin
#   docker run --rm -v "$PWD/runs:/eccco/runs" -v "$PWD/paper:/eccco/paper" -v "$PWD/figures:/eccco/figures" eccco-go           # paper protocol
#   docker run --rm -v "$PWD/runs:/eccco/runs" -v "$PWD/figures:/eccco/figures" eccco-go --quick                                  # minutes
#   docker run --rm -it -p 8888:8888 -e JUPYTER_TOKEN=choose-one -v "$PWD/runs:/eccco/runs" eccco-go lab                         # http://localhost:8888/lab?token=choose-one
#
# Built in stages, cheapest to invalidate last: Debian packages, the Python venv (and the XLA plugin), the Go
# modules and notebook tools (from go.mod/go.sum alone), then the source. Every RUN is one script under
# docker/, and .ci/docker.sh runs the same scripts, in the same order, outside Docker. See README.md (Docker).

FROM golang:1.26.8-bookworm AS system
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
WORKDIR /eccco
COPY docker/install-system.sh docker/apt-packages.txt docker/
# The TeX package list, if the checkout has one (BuildKit lets a wildcard match nothing; install-system.sh
# falls back to a minimal TeX set without it).
COPY scripts/texlive-packages.tx[t] scripts/
RUN docker/install-system.sh --image

FROM system AS python
ARG WITH_XLA=0
COPY notebooks/setup.sh notebooks/requirements.txt notebooks/
COPY scripts/install-xla.sh scripts/
COPY docker/install-python.sh docker/
RUN --mount=type=cache,target=/root/.cache/pip ECCCO_WITH_XLA="$WITH_XLA" docker/install-python.sh

FROM python AS gotools
COPY go.mod go.sum ./
COPY docker/install-go.sh docker/
RUN docker/install-go.sh

FROM gotools AS eccco
COPY . .
RUN docker/build.sh
EXPOSE 8888
ENTRYPOINT ["/usr/bin/tini", "--", "/eccco/docker/entrypoint.sh"]
