#!/usr/bin/env bash
# CI for the Dockerfile, on a machine without a Docker engine: lints it with hadolint (pinned, from PyPI),
# then replays its stages outside Docker (each COPY into a replay folder that stands for the image's /eccco,
# each RUN there, in order: the very scripts under docker/ the image runs), then checks the image's entry
# point in that folder: `--help` prints reproduce.sh's help, `eccco` runs the CLI, and `lab` starts
# JupyterLab on 0.0.0.0 that answers HTTP, takes its token from JUPYTER_TOKEN and lists the gonb kernel.
#
# On the machine itself (throw-away CI machines; idempotent): the Debian packages of docker/apt-packages.txt
# and the TeX set (apt-get, as root; a no-op when they are there). The notebooks' venv and Go tools are those
# of .notebooks/ (the cache .ci/notebooks.sh uses; made or checked by the same notebooks/setup.sh);
# ECCCO_DOCKER_FRESH=1 makes them from scratch inside the replay folder instead. The replay folder is
# ${TMPDIR:-/tmp}/eccco-docker-replay (ECCCO_DOCKER_REPLAY_DIR), emptied at the start and left for the next
# run (a fixed path keeps Go's build cache warm). What cannot run here prints a SKIP line; a failure fails.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/goenv.sh
repo="$PWD"
start=$SECONDS
lap=$SECONDS
took() { echo "   ($((SECONDS - lap)) s)"; lap=$SECONDS; }
fail() { echo "FAIL docker: $*" >&2; exit 1; }

echo "== docker: hadolint on the Dockerfile"
rc=0
docker/hadolint.sh --no-color Dockerfile || rc=$?
case "$rc" in
  0) echo "   hadolint: no findings" ;;
  3) echo "SKIP hadolint: it could not be obtained (see above)" ;;
  *) fail "hadolint reported findings (above)" ;;
esac
took

echo "== docker: static checks (COPY sources, RUN scripts, .dockerignore, pinned base image)"
declare -A argdefault=()
while read -r kw rest; do
  case "$kw" in
    ARG) if [ "${rest#*=}" != "$rest" ]; then argdefault[${rest%%=*}]="${rest#*=}"; fi ;;
    FROM)
      img="${rest%% *}"
      if [[ "$img" =~ ^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$ ]]; then
        arg="${BASH_REMATCH[1]}"
        [ -n "${argdefault[$arg]:-}" ] || fail "FROM $img: ARG $arg has no default (the official image)"
        img="${argdefault[$arg]}"
        echo "   FROM \${$arg}: the build argument's default is $img"
      fi
      case "$img" in
        system|python|gotools) ;;  # an earlier stage
        *:[0-9]*.[0-9]*.[0-9]*-*) echo "   base image $img (tag pinned to a full version)" ;;
        *) fail "FROM $img: pin the base image to an exact tag (e.g. golang:1.26.8-bookworm)" ;;
      esac ;;
    COPY)
      read -r -a words <<<"$rest"
      for src in "${words[@]:0:${#words[@]}-1}"; do
        case "$src" in
          --*|.) ;;
          *'['*|*'*'*) compgen -G "$src" >/dev/null || echo "   COPY $src: matches nothing here (allowed: BuildKit copies nothing)" ;;
          *) [ -e "$src" ] || fail "COPY $src: no such file" ;;
        esac
      done ;;
    RUN)
      for w in $rest; do
        case "$w" in docker/*.sh) [ -x "$w" ] || fail "RUN $w: not an executable script" ;; esac
      done ;;
  esac
done < <(grep -E '^(ARG|FROM|COPY|RUN) ' Dockerfile)
# The image's hashed requirements name the same packages at the same versions as the notebooks' own.
pins() { sed 's/#.*//; s/ *\\$//; s/^ *--hash.*//' "$1" | tr -d ' ' | grep -v '^$' | tr 'A-Z_.' 'a-z--' | LC_ALL=C sort; }
diff <(pins notebooks/requirements.txt) <(pins docker/requirements-hashes.txt) >/dev/null ||
  fail "docker/requirements-hashes.txt and notebooks/requirements.txt pin different packages (remake the first: its header says how)"
[ "$(grep -c -- '--hash=sha256:' docker/requirements-hashes.txt)" = "$(pins notebooks/requirements.txt | wc -l)" ] ||
  fail "docker/requirements-hashes.txt: not one hash per package"
for p in .notebooks .xla bin runs data/cache; do
  grep -qxF "$p" .dockerignore || fail ".dockerignore does not exclude $p (the host's would overwrite the image's)"
done
grep -q '^ENTRYPOINT \["/usr/bin/tini", "--", "/eccco/docker/entrypoint.sh"\]' Dockerfile ||
  fail "the ENTRYPOINT is not tini + docker/entrypoint.sh (update this check and docker/README.md together)"
echo "   ok"
took

echo "== docker: a Docker engine?"
if docker info >/dev/null 2>&1; then
  echo "SKIP docker build: an engine answers, but a full build (TeX, venv, Go modules) does not fit CI's time; the stages are replayed below"
else
  echo "SKIP docker build: no Docker engine here (\`docker info\` fails); the Dockerfile's stages are replayed below (scripts/container-check.sh builds and runs the image with podman: too long for CI)"
fi
if docker buildx version >/dev/null 2>&1; then
  docker buildx build --check . || fail "docker buildx build --check"
else
  echo "SKIP docker build --check: no buildx plugin here (and the check needs an engine)"
fi
took

# ---- the replay ---------------------------------------------------------------------------------------------
replay="${ECCCO_DOCKER_REPLAY_DIR:-${TMPDIR:-/tmp}/eccco-docker-replay}"
case "$replay" in /|"$repo"|"$repo"/*) fail "ECCCO_DOCKER_REPLAY_DIR=$replay: choose a folder outside the checkout" ;; esac
rm -rf "$replay"
mkdir -p "$replay"
if [ "${ECCCO_DOCKER_FRESH:-0}" = 1 ]; then
  export ECCCO_NOTEBOOKS_HOME="$replay/.notebooks"
else
  export ECCCO_NOTEBOOKS_HOME="${ECCCO_NOTEBOOKS_HOME:-$repo/.notebooks}"
fi
echo "== docker: the Dockerfile's stages replayed in $replay (/eccco), notebook tools in $ECCCO_NOTEBOOKS_HOME"

# copy_context: what `COPY . .` sends (git's view: tracked and untracked-but-not-ignored files; .dockerignore
# excludes the same build outputs as .gitignore, checked above). .git is left out (build.sh then builds
# without the VCS stamp).
copy_context() {
  git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar -C "$repo" --null -T - -cf - | tar -C "$1" -xf -
}

while IFS= read -r line; do
  read -r kw rest <<<"$line"
  case "$kw" in
    FROM) echo "-- stage: $rest" ;;
    WORKDIR) [ "$rest" = /eccco ] || fail "WORKDIR $rest: the replay maps only /eccco" ;;
    ARG)
      name="${rest%%=*}"
      if [ -z "${!name+x}" ]; then export "$name=${rest#*=}"; fi ;;
    ENV)
      # HOME is the image user's; the replay runs as this machine's user, in its own home. Other NAME=VALUE
      # pairs (no quotes, no spaces in a value) are exported for the RUNs that follow, as Docker does.
      if [ "$rest" != HOME=/home/eccco ]; then
        for kv in $rest; do
          case "$kv" in
            [A-Z_]*=*[\"\'\$]*|*=) fail "ENV is not replayed yet: teach .ci/docker.sh ($line)" ;;
            [A-Z_]*=*) export "${kv?}" ;;
            *) fail "ENV is not replayed yet: teach .ci/docker.sh ($line)" ;;
          esac
        done
      fi ;;
    USER) ;;  # the image's user (eccco, made by install-system.sh --image); the replay runs as this machine's
    COPY)
      read -r -a words <<<"$rest"
      dest="${words[-1]}"
      mkdir -p "$replay/$dest"
      for src in "${words[@]:0:${#words[@]}-1}"; do
        case "$src" in
          --chown=*) ;;  # ownership inside the image only
          --*) fail "COPY flags are not replayed: $line" ;;
          .) copy_context "$replay/$dest" ;;
          *) for f in $src; do [ -e "$f" ] && cp -a "$f" "$replay/$dest"; done ;;
        esac
      done ;;
    RUN)
      cmd="$rest"
      while [ "${cmd#--}" != "$cmd" ]; do cmd="${cmd#* }"; done  # --mount=… flags: build-time caches only
      echo "-- RUN $cmd"
      if [ "$cmd" = "docker/install-system.sh --image" ]; then
        # On this machine: not --image (that would add Debian's Fashion-MNIST, which a test needs absent, and
        # delete apt's lists); the image-only pins are resolved with --dry-run instead.
        if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
          echo "SKIP system packages: not root or no apt-get here; the next steps need python3-venv and npm"
          continue
        fi
        (cd "$replay" && docker/install-system.sh --image --dry-run && docker/install-system.sh)
      else
        (cd "$replay" && bash -o pipefail -c "$cmd")
      fi
      took ;;
    EXPOSE|ENTRYPOINT|CMD|SHELL) ;;
    *) fail "Dockerfile instruction not replayed: $line" ;;
  esac
done < <(grep -Ev '^[[:space:]]*(#|$)' Dockerfile)

# ---- the entry point ----------------------------------------------------------------------------------------
echo "== docker: entry point (tini + docker/entrypoint.sh, as the ENTRYPOINT runs them)"
ep=("$replay/docker/entrypoint.sh")
if [ -x /usr/bin/tini ]; then ep=(/usr/bin/tini -s -- "${ep[@]}"); else echo "   (no /usr/bin/tini here: the entry point runs without it)"; fi
help="$("${ep[@]}" --help)"
want="$("$replay/reproduce.sh" --help)"
[ "${help:0:${#want}}" = "$want" ] || fail "entrypoint --help does not start with reproduce.sh's help"
grep -q 'lab \[ARGS' <<<"$help" || fail "entrypoint --help does not list its own commands"
echo "   --help: reproduce.sh's help ($(wc -l <<<"$want") lines) and the entry point's commands"
"${ep[@]}" eccco backend | sed 's/^/   eccco backend: /'

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])')"
token="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
log="$replay/lab.log"
echo "   lab: starting on port $port (log: $log)"
ECCCO_LAB_PORT="$port" JUPYTER_TOKEN="$token" setsid "${ep[@]}" lab >"$log" 2>&1 </dev/null &
lab_pid=$!
stop_lab() {
  kill -TERM -- "-$lab_pid" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$lab_pid" 2>/dev/null || return 0; sleep 0.2; done
  kill -KILL -- "-$lab_pid" 2>/dev/null || true
}
trap stop_lab EXIT
. scripts/lab-probe.sh
waited="$(lab_wait "$port" "${ECCCO_DOCKER_LAB_TIMEOUT:-120}" 'kill -0 "$lab_pid"' 'tail -n 30 "$log"')"
echo "   lab: /api answers after $waited s"
lab_check_token "$port" "$token"
echo "   lab: /lab answers 200 with JUPYTER_TOKEN, 401/403 without; /api/kernelspecs lists gonb"
if command -v ss >/dev/null; then
  ss -ltn | grep -Eq "(0\.0\.0\.0|\*|\[::\]):$port " || fail "lab does not listen on all interfaces (ss -ltn)"
  echo "   lab: listening on all interfaces (ss)"
else
  grep -q "0.0.0.0\|$(hostname)" "$log" || echo "   (no ss here: the listening address is not checked)"
fi
# The same JUPYTER_PATH as notebooks/lab.sh sets.
ks="$(JUPYTER_PATH="$ECCCO_NOTEBOOKS_HOME/venv/share/jupyter" "$ECCCO_NOTEBOOKS_HOME/venv/bin/jupyter" kernelspec list)"
sed 's/^/   jupyter kernelspec list: /' <<<"$ks"
grep -q '^ *gonb ' <<<"$ks" || fail "jupyter kernelspec list (the venv's) does not list gonb"
stop_lab
trap - EXIT
wait "$lab_pid" 2>/dev/null || true
echo "   lab: stopped"
took

echo "== docker: passed in $((SECONDS - start)) s"
