# eccco-go in a container: ./reproduce.sh headless (the default), or JupyterLab with the GoNB kernel (`lab`).
#
#   docker build -t eccco-go .                          # --build-arg WITH_XLA=1 adds the XLA CPU plugin
#   docker run --rm -v "$PWD/runs:/eccco/runs" -v "$PWD/paper:/eccco/paper" -v "$PWD/figures:/eccco/figures" eccco-go           # paper protocol
#   docker run --rm -v "$PWD/runs:/eccco/runs" -v "$PWD/figures:/eccco/figures" eccco-go --quick                                  # minutes
#   docker run --rm -it -p 8888:8888 -e JUPYTER_TOKEN=choose-one -v "$PWD/runs:/eccco/runs" eccco-go lab                         # http://localhost:8888/lab?token=choose-one
#
# Built in stages, cheapest to invalidate last: Debian packages, the Python venv (and the XLA plugin), the Go
# modules and notebook tools (from go.mod/go.sum alone), then the source. Every RUN is one script under
# docker/, and .ci/docker.sh runs the same scripts, in the same order, outside Docker. Everything after the
# Debian packages runs as the user eccco (uid 1000), who owns /eccco. See docker/README.md.
#
# BASE: the official image by default; where no registry answers, docker/base.sh makes an equivalent one from
# Debian's archive and the Go proxy (scripts/container-check.sh passes --build-arg BASE=localhost/golang:…).
ARG BASE=golang:1.26.8-bookworm

FROM ${BASE} AS system
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
WORKDIR /eccco
COPY docker/install-system.sh docker/apt-packages.txt docker/
# The TeX package list, if the checkout has one (BuildKit lets a wildcard match nothing; install-system.sh
# falls back to a minimal TeX set without it).
COPY scripts/texlive-packages.tx[t] scripts/
RUN docker/install-system.sh --image
USER 1000:1000
ENV HOME=/home/eccco

FROM system AS python
ARG WITH_XLA=0
COPY --chown=eccco:eccco notebooks/setup.sh notebooks/requirements.txt notebooks/
COPY --chown=eccco:eccco scripts/install-xla.sh scripts/pip-wheels.sh scripts/goenv.sh scripts/
COPY --chown=eccco:eccco docker/install-python.sh docker/requirements-hashes.txt docker/
RUN --mount=type=cache,target=/home/eccco/.cache/pip,uid=1000,gid=1000 ECCCO_WITH_XLA="$WITH_XLA" docker/install-python.sh

FROM python AS gotools
# go.mod needs Go 1.27.3, which the go command fetches from the module proxy (the base has 1.26.8 and
# GOTOOLCHAIN=local); simd: the pure-Go backend's SIMD kernels. scripts/goenv.sh says the same for scripts.
ENV GOTOOLCHAIN=go1.27.3 GOEXPERIMENT=simd
COPY --chown=eccco:eccco go.mod go.sum ./
COPY --chown=eccco:eccco docker/install-go.sh docker/
RUN docker/install-go.sh

FROM gotools AS eccco
COPY --chown=eccco:eccco . .
RUN docker/build.sh
EXPOSE 8888
ENTRYPOINT ["/usr/bin/tini", "--", "/eccco/docker/entrypoint.sh"]
