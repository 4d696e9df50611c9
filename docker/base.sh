#!/usr/bin/env bash
# docker/base.sh — makes, where no registry can be reached, a local stand-in for the Dockerfile's base image
# golang:1.26.8-bookworm: a Debian 12 root file system from Debian's archive (debootstrap --variant=minbase,
# plus the packages the official image adds: git, curl, ca-certificates, gcc, libc6-dev, make, pkg-config…)
# and Go 1.26.8 at /usr/local/go from the Go module proxy's toolchain module (golang.org/toolchain
# v0.0.1-go1.26.8.linux-amd64, its zip checked by SHA-256), imported with the official image's ENV (GOPATH=/go,
# PATH, GOTOOLCHAIN=local, GOLANG_VERSION) and WORKDIR. Then, unchanged:
#
#   podman build --build-arg BASE=localhost/golang:1.26.8-bookworm …      (scripts/container-check.sh does it)
#
#   docker/base.sh [--tag NAME] [--force]   default tag localhost/golang:1.26.8-bookworm; an existing image of
#                                           that tag is kept unless --force
#
# Needs: root, podman (or docker: ECCCO_CONTAINER=docker), debootstrap, curl, the Debian archive
# (ECCCO_DEBIAN_MIRROR, default http://deb.debian.org/debian) and the Go proxy (GOPROXY's first URL, default
# https://proxy.golang.org). Linux x86-64 only. Its work folder is ${TMPDIR:-/var/tmp}/eccco-base (removed).
set -euo pipefail
GO_VERSION=1.26.8
GO_ZIP_SHA256=30c2b1bf7dcc88d3eb0a1364e47ddd9128edb3110a30e8a0ef61cd5856b31de7
SUITE=bookworm
# What golang:1.26.8-bookworm has beyond minbase (buildpack-deps:bookworm-scm, then golang's own apt line).
EXTRA=ca-certificates,curl,gnupg,netbase,wget,git,openssh-client,procps,g++,gcc,libc6-dev,make,pkg-config,xz-utils,unzip
tag="localhost/golang:$GO_VERSION-$SUITE"
force=0
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) shift; tag="${1:?--tag needs a name}" ;;
    --force) force=1 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "base.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
say() { echo "base: $*"; }
die() { echo "base.sh: $*" >&2; exit 1; }
engine="${ECCCO_CONTAINER:-podman}"
command -v "$engine" >/dev/null || die "no $engine here"
[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || die "Linux x86-64 only"
if [ "$force" = 0 ] && "$engine" image inspect "$tag" >/dev/null 2>&1; then
  say "$tag exists (--force makes it again)"
  exit 0
fi
[ "$(id -u)" = 0 ] || die "debootstrap needs root"
command -v debootstrap >/dev/null || die "no debootstrap (apt-get install debootstrap)"
mirror="${ECCCO_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
proxy="${GOPROXY:-https://proxy.golang.org}"
proxy="${proxy%%[,|]*}"
case "$proxy" in http*) ;; *) proxy=https://proxy.golang.org ;; esac

work="${TMPDIR:-/var/tmp}/eccco-base"
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
start=$SECONDS

zip="$work/go.zip"
mod="golang.org/toolchain@v0.0.1-go$GO_VERSION.linux-amd64"
say "Go $GO_VERSION: $proxy/golang.org/toolchain/@v/v0.0.1-go$GO_VERSION.linux-amd64.zip"
curl -sSfL --retry 2 -o "$zip" "$proxy/golang.org/toolchain/@v/v0.0.1-go$GO_VERSION.linux-amd64.zip"
echo "$GO_ZIP_SHA256  $zip" | sha256sum -c --quiet - || die "the toolchain zip's SHA-256 is not $GO_ZIP_SHA256"

say "debootstrap --variant=minbase $SUITE from $mirror (+ $EXTRA)"
debootstrap --variant=minbase --include="$EXTRA" "$SUITE" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -n 20 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
rootfs="$work/rootfs"
# The image's apt sources: the archive, updates and security, as in Debian's official images.
rm -f "$rootfs/etc/apt/sources.list"
cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: $SUITE $SUITE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: $SUITE-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
# Updates to the packages above (a point release's fixes), as the official image carries them.
chroot "$rootfs" /bin/sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get -y -qq upgrade' \
  >"$work/upgrade.log" 2>&1 || { tail -n 20 "$work/upgrade.log" >&2; die "apt-get upgrade in the root file system failed"; }
chroot "$rootfs" /bin/sh -c 'apt-get clean && rm -rf /var/lib/apt/lists/*'
rm -rf "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/log/*.log "$rootfs"/tmp/* "$rootfs"/root/.cache

(cd "$work" && unzip -q "$zip" -d unz)
mv "$work/unz/$mod" "$rootfs/usr/local/go"
mkdir -p "$rootfs/go/src" "$rootfs/go/bin"
chmod -R 1777 "$rootfs/go"
"$rootfs/usr/local/go/bin/go" version | grep -q "go$GO_VERSION linux/amd64" || die "the unpacked Go is not go$GO_VERSION"

say "importing as $tag"
tar -C "$rootfs" --numeric-owner -cf - . | "$engine" import \
  --change 'ENV PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV GOLANG_VERSION=$GO_VERSION" \
  --change 'ENV GOTOOLCHAIN=local' \
  --change 'ENV GOPATH=/go' \
  --change 'WORKDIR /go' \
  --change 'CMD ["bash"]' \
  --quiet - "$tag" >/dev/null
"$engine" run --rm --network none "$tag" sh -c '. /etc/os-release; echo "base: $PRETTY_NAME, $(go version), $(git --version)"'
say "$tag made in $((SECONDS - start)) s ($("$engine" image inspect -f '{{.Size}}' "$tag" | awk '{printf "%.0f MB", $1/1e6}'))"
