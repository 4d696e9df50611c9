#!/usr/bin/env bash
# scripts/container-check.sh — builds the image from the Dockerfile and runs it for real: the quick profile
# (`docker run … --quick`) to its end inside a container without network, its outputs on mounted folders, then
# the `lab` entry point: JupyterLab answers over HTTP (token required), lists the gonb kernel, and a notebook
# runs through the server in headless Chromium (Run All Cells; a screenshot). Wall times of every step are
# printed and written to OUT/times.tsv.
#
#   scripts/container-check.sh [--out DIR] [--tag NAME] [--no-quick] [--no-lab] [--notebook NB.ipynb]
#
#   --out DIR        where the container's outputs land (default ${TMPDIR:-/var/tmp}/eccco-container-check; new,
#                    empty, or an earlier check's, which is emptied first): runs/ (runs/quick/, runs/notebooks/executed/),
#                    figures/, paper/ (a copy of the checkout's), data/
#                    (a copy of the checkout's data cache, if any), lab-screenshot.png, logs
#   --tag NAME       the image's name (default localhost/eccco-go:check)
#   --no-quick, --no-lab   leave that part out;  --notebook NB   the notebook run through the server (00-smoke)
#
# The engine: docker when `docker info` answers, else podman (ECCCO_CONTAINER=docker|podman chooses). Under
# podman without CONTAINERS_CONF, a containers.conf with runc and no default ulimits is used when runc is
# installed (what Debian 12 machines without cgroup v2 need). The base: golang:1.26.8-bookworm when the engine
# has it or can pull it, else docker/base.sh makes localhost/golang:1.26.8-bookworm (Debian's archive, the Go
# proxy) and the build gets --build-arg BASE=… — the Dockerfile is the same either way. Under podman, the build
# runs with the host's network and CA bundle (-v /etc/ssl/certs:/etc/ssl/certs:ro), as RUN steps need PyPI, the
# Go proxy and Debian. The quick run uses ECCCO_MIRROR (mounted read-only at /mirror) when it is set. The
# notebook in the browser needs Node.js >= 20, npm and Chromium (CHROMIUM, default /usr/bin/chromium); without
# them that step prints SKIP. Exit status 0 when every step that ran passed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/goenv.sh
out="${TMPDIR:-/var/tmp}/eccco-container-check"
tag=localhost/eccco-go:check
quick=1 lab=1 nb=00-smoke.ipynb
while [ $# -gt 0 ]; do
  case "$1" in
    --out) shift; out="${1:?--out needs a folder}" ;;
    --tag) shift; tag="${1:?--tag needs a name}" ;;
    --no-quick) quick=0 ;;
    --no-lab) lab=0 ;;
    --notebook) shift; nb="${1:?--notebook needs a name}" ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "container-check.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -f "notebooks/$nb" ] || { echo "container-check.sh: no notebooks/$nb" >&2; exit 2; }
out="$(mkdir -p "$out" && cd "$out" && pwd)"
case "$out" in /|"$root"|"$root"/*|"$HOME") echo "container-check.sh: --out $out: choose a scratch folder outside the checkout" >&2; exit 2 ;; esac
start=$SECONDS
lap=$SECONDS
say() { echo "container-check: $*"; }
fail() { echo "FAIL container-check: $*" >&2; exit 1; }
times="$out/times.tsv"
step_done() { # NAME: records the step's wall time
  local s=$((SECONDS - lap))
  printf '%s\t%s\n' "$1" "$s" >>"$times"
  say "$1: $s s"
  lap=$SECONDS
}

# --- the engine ------------------------------------------------------------------------------------------
engine="${ECCCO_CONTAINER:-}"
if [ -z "$engine" ]; then
  if command -v docker >/dev/null && docker info >/dev/null 2>&1; then engine=docker
  elif command -v podman >/dev/null; then engine=podman
  else fail "neither a Docker engine nor podman here (Debian: apt-get install podman runc)"; fi
fi
confdir=""
cleanup() {
  [ -n "${lab_name:-}" ] && "$engine" rm -f "$lab_name" >/dev/null 2>&1
  [ -n "$confdir" ] && rm -rf "$confdir"
  return 0
}
trap cleanup EXIT
if [ "$engine" = podman ] && [ -z "${CONTAINERS_CONF:-}" ] && command -v runc >/dev/null; then
  confdir="$(mktemp -d)"
  printf '[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\n' >"$confdir/containers.conf"
  export CONTAINERS_CONF="$confdir/containers.conf"
fi
say "engine: $("$engine" --version)${CONTAINERS_CONF:+ (CONTAINERS_CONF=$CONTAINERS_CONF)}"
# Emptied only when empty already or when it holds an earlier check's outputs (its times.tsv).
if [ -n "$(ls -A "$out")" ] && [ ! -f "$out/times.tsv" ]; then
  fail "--out $out holds files that are not an earlier check's (no times.tsv): choose an empty or new folder"
fi
rm -rf "${out:?}"/* "$out"/.[!.]* 2>/dev/null || true
printf 'step\tseconds\n' >"$times"

# --- the base --------------------------------------------------------------------------------------------
official="$(sed -n 's/^ARG BASE=//p' Dockerfile)"
[ -n "$official" ] || fail "the Dockerfile has no ARG BASE=… default"
build_args=()
# The full name: podman resolves a short name to a local image of that name first (docker/base.sh's).
if "$engine" image inspect "docker.io/library/$official" >/dev/null 2>&1 ||
  timeout 120 "$engine" pull -q "docker.io/library/$official" >/dev/null 2>&1; then
  say "base: $official (the official image)"
else
  local_base="localhost/$official"
  say "base: $official cannot be pulled here; docker/base.sh makes $local_base"
  ECCCO_CONTAINER="$engine" docker/base.sh --tag "$local_base"
  build_args+=(--build-arg "BASE=$local_base")
fi
step_done base

# --- the image -------------------------------------------------------------------------------------------
net_args=()
if [ "$engine" = podman ]; then
  net_args=(--network host)
  [ -d /etc/ssl/certs ] && net_args+=(-v /etc/ssl/certs:/etc/ssl/certs:ro)
fi
say "$engine build ${net_args[*]} ${build_args[*]} -t $tag ."
rc=0
"$engine" build "${net_args[@]}" "${build_args[@]}" -t "$tag" . 2>&1 | tee "$out/build.log" |
  { grep -E '(^\[[0-9]+/[0-9]+\] STEP|^--> Using cache|^install-[a-z]+: (creating|installing)|^build: |^#[0-9]+ (DONE|CACHED))' || true; } || rc=$?
[ "$rc" = 0 ] || { tail -n 40 "$out/build.log" >&2; fail "the image did not build (log: $out/build.log)"; }
size="$("$engine" image inspect -f '{{.Size}}' "$tag")"
say "image $tag: $((size / 1000000)) MB"
printf 'image-size-mb\t%s\n' "$((size / 1000000))" >>"$times"
step_done build

user="$("$engine" run --rm --network none "$tag" id -un)"
[ "$user" = eccco ] || fail "the container runs as $user, not eccco"
say "the container runs as $user ($("$engine" run --rm --network none "$tag" id -u))"

# Folders the container (uid 1000) writes into: made here, given to that uid when this script runs as root.
give() { mkdir -p "$@"; if [ "$(id -u)" = 0 ]; then chown -R 1000:1000 "$@"; else chmod -R a+rwX "$@"; fi; }

# --- the quick profile, inside ---------------------------------------------------------------------------
if [ "$quick" = 1 ]; then
  mkdir -p "$out/runs" "$out/figures" "$out/data"
  cp -a paper "$out/paper"
  src_data="${ECCCO_DATA_DIR:-$root/data/cache}"
  [ -d "$src_data" ] && cp -a "$src_data/." "$out/data/"
  give "$out/runs" "$out/figures" "$out/paper" "$out/data"
  vols=(-v "$out/runs:/eccco/runs" -v "$out/figures:/eccco/figures" -v "$out/paper:/eccco/paper" -v "$out/data:/eccco/data/cache")
  if [ -n "${ECCCO_MIRROR:-}" ]; then vols+=(-v "$ECCCO_MIRROR:/mirror:ro" -e ECCCO_MIRROR=/mirror); fi
  say "$engine run --rm --network none ${vols[*]} -e ECCCO_PROGRESS=lines $tag --quick (log: $out/quick.log)"
  rc=0
  "$engine" run --rm --network none "${vols[@]}" -e ECCCO_PROGRESS=lines "$tag" --quick >"$out/quick.log" 2>&1 || rc=$?
  sed -n '/^== summary/,$p' "$out/quick.log"
  [ "$rc" = 0 ] || { tail -n 40 "$out/quick.log" >&2; fail "the quick run exited $rc"; }
  [ -s "$out/runs/quick/report/eccco-go.pdf" ] || fail "no runs/quick/report/eccco-go.pdf on the mounted folder"
  head -c 5 "$out/runs/quick/report/eccco-go.pdf" | grep -q '%PDF-' || fail "runs/quick/report/eccco-go.pdf is not a PDF"
  nfig="$(find "$out/figures" -maxdepth 1 -name '*.png' | wc -l)"
  [ "$nfig" -gt 0 ] || fail "no figures on the mounted folder"
  nnb="$(find "$out/runs/notebooks/executed" -name '*.ipynb' 2>/dev/null | wc -l)"
  [ "$nnb" -gt 0 ] || fail "no executed notebooks under runs/notebooks/executed"
  # The run's outcome, as eccco reproduce wrote it (runs/quick/summary.json: each stage ok, skipped or failed,
  # with a note such as "data sets mnist skipped: not available"): finished, and no stage failed or skipped.
  outcome="$(python3 scripts/run-outcome.py "$out/runs/quick/summary.json" --every ok)" || fail "the quick run did not end ok: $outcome"
  say "quick: runs/quick/report/eccco-go.pdf ($(stat -c %s "$out/runs/quick/report/eccco-go.pdf") bytes), $nfig figures (PNG), $nnb executed notebooks, $outcome"
  step_done quick
fi

# --- lab -------------------------------------------------------------------------------------------------
if [ "$lab" = 1 ]; then
  token="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  lab_name="eccco-check-lab-$$"
  say "$engine run -d -p 127.0.0.1:$port:8888 -e JUPYTER_TOKEN=… -e ECCCO_QUICK=1 $tag lab"
  "$engine" run -d --name "$lab_name" -p "127.0.0.1:$port:8888" -e JUPYTER_TOKEN="$token" -e ECCCO_QUICK=1 "$tag" lab >/dev/null
  . scripts/lab-probe.sh
  waited="$(lab_wait "$port" "${ECCCO_LAB_TIMEOUT:-180}" '[ "$("$engine" inspect -f "{{.State.Running}}" "$lab_name")" = true ]' \
    '"$engine" logs "$lab_name" 2>&1 | tail -n 30')"
  say "lab: /api answers after $waited s"
  lab_check_token "$port" "$token"
  say "lab: /lab answers 200 with the token, 401/403 without; /api/kernelspecs lists gonb"
  step_done lab-http

  chromium="${CHROMIUM:-/usr/bin/chromium}"
  if [ -x "$chromium" ] && command -v node >/dev/null && command -v npm >/dev/null; then
    want="$(node -p "require('./notebooks/browser/package.json').dependencies['playwright-core']")"
    have="$(node -p "try { require('./notebooks/browser/node_modules/playwright-core/package.json').version } catch { '' }")"
    if [ "$want" != "$have" ]; then
      (cd notebooks/browser && npm ci --no-audit --no-fund --loglevel=error)
    fi
    say "lab: $nb through the server in headless Chromium (Run All Cells)"
    CHROMIUM="$chromium" node notebooks/browser/run.mjs --url "http://127.0.0.1:$port" --token "$token" \
      --notebook "$nb" --file "notebooks/$nb" --out "$out/lab-screenshot.png" --timeout "${ECCCO_BROWSER_TIMEOUT:-900}" ||
      { "$engine" logs "$lab_name" 2>&1 | tail -n 30 >&2; fail "$nb did not run through the server"; }
    say "lab: $nb ran in the container's kernel; screenshot $out/lab-screenshot.png"
    step_done lab-notebook
  else
    echo "SKIP lab notebook: needs Chromium ($chromium), Node.js and npm on this machine"
  fi
  "$engine" logs "$lab_name" >"$out/lab.log" 2>&1 || true
  "$engine" rm -f "$lab_name" >/dev/null
  lab_name=""
fi

printf 'total\t%s\n' "$((SECONDS - start))" >>"$times"
say "passed in $((SECONDS - start)) s; times: $times"
