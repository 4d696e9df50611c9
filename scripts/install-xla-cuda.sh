#!/usr/bin/env bash
# Installs the pinned XLA PJRT CUDA 12 plugin and the NVIDIA libraries it needs for GOMLX_BACKEND=xla:cuda
# (binaries built with -tags xla) into the project's plugin folder (default .xla/, or $ECCCO_XLA_DIR), laid out
# as go-xla's own installer does:
#
#   .xla/nvidia/pjrt_c_api_cuda_plugin.so   (jax_plugins/xla_cuda12/xla_cuda_plugin.so from jax-cuda12-pjrt)
#   .xla/nvidia/{cublas,cudnn,cuda_nvcc,...} (the nvidia/ trees of the nvidia-*-cu12 wheels)
#   .xla/nvidia/bin/ptxas -> ../cuda_nvcc/bin/ptxas
#
# The plugin's RPATH ($ORIGIN/../nvidia/<lib>/lib) finds the libraries there, and go-xla points XLA's
# --xla_gpu_cuda_data_dir at .xla/nvidia. Needs an NVIDIA driver for CUDA 12 on the machine; the libraries
# themselves come from PyPI (about 3 GB of wheels). Everything is pinned by version and SHA-256: the NVIDIA
# versions are those pip resolved for `jax-cuda12-plugin[with-cuda]==0.11.2` (jax's own requirements) for
# Linux x86-64. The same XLA as the pinned CPU plugin (lammps-jax-pjrt-cpu==0.11.2, see install-xla.sh).
#
# Where jax with CUDA is already installed (pip install "jax[cuda12]" or "jax[cuda13]"), `--link-jax [PYTHON]`
# downloads nothing: it links that installation's PJRT plugin (jax_plugins/xla_cuda13 or xla_cuda12) and its
# nvidia/ libraries into .xla/nvidia, in the same layout, with symbolic links (the plugin's RPATH
# $ORIGIN/../nvidia/<lib>/lib then resolves through them). PYTHON is the interpreter that imports that jax
# (default python3). This is how the GPU checks of scripts/gpu-check.sh run on a machine without network.
#
# Tried on a GPU (2026-11-26, an NVIDIA H100 80GB, driver 580.159.04, 16 cores): --link-jax with the machine's
# jax 0.11.2 and jax-cuda13-pjrt 0.11.2 (PJRT C API v0.115, the CUDA 13 nvidia-* libraries): the plugin loaded,
# `eccco backend` saw one device, and the tests of the seven GoMLX packages passed on xla:cuda
# (scripts/gpu-check.sh). The pinned CUDA 12 wheels below have not been run on a GPU: that machine had no
# network, and 3 GB of wheels could not be carried to it.
#
# Usage: scripts/install-xla-cuda.sh [--force]
#        scripts/install-xla-cuda.sh --link-jax [PYTHON [--force]]   (--force: replace a downloaded install)
set -euo pipefail

JAX_VERSION=0.11.2
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${ECCCO_XLA_DIR:-$root/.xla}"
nv="$dest/nvidia"
stamp="$nv/pjrt_c_api_cuda_plugin.so.pin"

# name==version --hash=sha256:... lines, one wheel each (Linux x86-64).
REQUIREMENTS="
jax-cuda12-pjrt==$JAX_VERSION --hash=sha256:2133b3afc63307c016ae4980f166b2b3de199759363ead74f7d550eaae953463
nvidia-cublas-cu12==12.9.3.13 --hash=sha256:d7d51055f161b317c7105ddaae90e71eda059026074ffef93cf7cde2886bfe72
nvidia-cuda-cupti-cu12==12.8.90 --hash=sha256:ea0cb07ebda26bb9b29ba82cda34849e73c166c18162d3913575b0c9db9a6182
nvidia-cuda-nvcc-cu12==12.9.86 --hash=sha256:5d6a0d32fdc7ea39917c20065614ae93add6f577d840233237ff08e9a38f58f0
nvidia-cuda-runtime-cu12==12.9.79 --hash=sha256:25bba2dfb01d48a9b59ca474a1ac43c6ebf7011f1b0b8cc44f54eb6ac48a96c3
nvidia-cudnn-cu12==9.28.0.42 --hash=sha256:9ff58b7f36dacd0a93e89f8f2957b52466889217963701daa15e577317cfa375
nvidia-cufft-cu12==11.4.1.4 --hash=sha256:c67884f2a7d276b4b80eb56a79322a95df592ae5e765cf1243693365ccab4e28
nvidia-cusolver-cu12==11.7.5.82 --hash=sha256:15da72d1340d29b5b3cf3fd100e3cd53421dde36002eda6ed93811af63c40d88
nvidia-cusparse-cu12==12.5.10.65 --hash=sha256:73060ce019ac064a057267c585bf1fd5a353734151f87472ff02b2c5c9984e78
nvidia-nccl-cu12==2.32.3 --hash=sha256:bb94b2348e4861d5e8aa00b36c3d12d9bdf9c6369b82cbb723de0b582280a21c
nvidia-nvjitlink-cu12==12.9.86 --hash=sha256:e3f1171dbdc83c5932a45f0f4c99180a70de9bd2718c1ab77d14104f6d7147f9
nvidia-cuda-nvrtc-cu12==12.9.86 --hash=sha256:210cf05005a447e29214e9ce50851e83fc5f4358df8b453155d5e1918094dcb4
nvidia-nvshmem-cu12==3.8.0 --hash=sha256:b2e5760d6158aefe7bb74348d5128bb1b46a7dd1fd4b7b1e6fe55b4b07888f70
"
want="$(echo "$REQUIREMENTS" | sha256sum | cut -d' ' -f1)"

die() { echo "install-xla-cuda: $*" >&2; exit 1; }
. "$root/scripts/pip-wheels.sh"

if [ "${1:-}" = --link-jax ]; then
  py="${2:-python3}"
  # Never replace a downloaded install (gigabytes of wheels) with links unless asked to.
  if [ -e "$nv" ] && [ ! -f "$stamp.linked" ] && [ "${3:-}" != --force ]; then
    die "--link-jax: $nv holds an install that is not a link to jax's; remove it, or pass --link-jax $py --force"
  fi
  command -v "$py" >/dev/null 2>&1 || die "--link-jax: no Python interpreter $py"
  # The plugin of the installed jax and the nvidia/ folder beside it (site-packages/nvidia).
  found="$("$py" - <<'PY'
import os, sys
try:
    import jax_plugins
except ImportError:
    sys.exit("no jax_plugins package: jax with CUDA (jax-cuda12-pjrt or jax-cuda13-pjrt) is not installed here")
for d in list(jax_plugins.__path__):
    for name in ("xla_cuda13", "xla_cuda12"):
        so = os.path.join(d, name, "xla_cuda_plugin.so")
        nv = os.path.join(os.path.dirname(d), "nvidia")
        if os.path.isfile(so) and os.path.isdir(nv):
            print(name, os.path.realpath(so), os.path.realpath(nv), sep="\t")
            sys.exit(0)
sys.exit("no jax_plugins/xla_cuda13 or xla_cuda12 with a nvidia/ folder beside it in " + ", ".join(jax_plugins.__path__))
PY
)" || die "--link-jax: $py has no usable jax CUDA plugin"
  IFS=$'\t' read -r flavour so site_nv <<<"$found"
  rm -rf "$nv.new"
  mkdir -p "$nv.new"
  ln -s "$so" "$nv.new/pjrt_c_api_cuda_plugin.so"
  for entry in "$site_nv"/*; do
    ln -s "$entry" "$nv.new/$(basename "$entry")"
  done
  # XLA's --xla_gpu_cuda_data_dir (go-xla points it at .xla/nvidia) wants bin/ptxas and nvvm/libdevice.
  case "$flavour" in
  xla_cuda13) toolkit=cu13 ;;
  *) toolkit=cuda_nvcc ;;
  esac
  if [ -d "$site_nv/$toolkit/bin" ] && [ ! -e "$nv.new/bin" ]; then ln -s "$toolkit/bin" "$nv.new/bin"; fi
  if [ -d "$site_nv/$toolkit/nvvm" ] && [ ! -e "$nv.new/nvvm" ]; then ln -s "$toolkit/nvvm" "$nv.new/nvvm"; fi
  rm -rf "$nv"
  mv "$nv.new" "$nv"
  echo "linked $flavour $so" >"$stamp.linked"
  echo "install-xla-cuda: linked $so ($flavour) and $site_nv into $nv"
  echo "install-xla-cuda: use it with: GOMLX_BACKEND=xla:cuda (binaries built with -tags xla)"
  exit 0
fi

if [ "${1:-}" != "--force" ] && [ -f "$nv/pjrt_c_api_cuda_plugin.so" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  echo "install-xla-cuda: $nv/pjrt_c_api_cuda_plugin.so already installed (jax-cuda12-pjrt==$JAX_VERSION)"
  exit 0
fi
wheels_platform "the pinned wheels are"
wheels_python

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "$REQUIREMENTS" >"$tmp/requirements.txt"
echo "install-xla-cuda: downloading jax-cuda12-pjrt==$JAX_VERSION and 12 NVIDIA wheels from PyPI (about 3 GB)"
wheels_download "$tmp/requirements.txt" "$tmp/wheels" "the pinned wheels"

# Unpack into a fresh folder beside the destination, then swap it in.
rm -rf "$nv.new"
mkdir -p "$nv.new"
"$py" - "$tmp/wheels" "$nv.new" <<'PY' || die "could not unpack the wheels"
import glob, os, shutil, sys, zipfile
wheels, out = sys.argv[1:]
found_plugin = False
for whl in sorted(glob.glob(os.path.join(wheels, "*.whl"))):
    with zipfile.ZipFile(whl) as z:
        for info in z.infolist():
            name = info.filename
            if name == "jax_plugins/xla_cuda12/xla_cuda_plugin.so":
                target, found_plugin = os.path.join(out, "pjrt_c_api_cuda_plugin.so"), True
            elif name.startswith("nvidia/") and not info.is_dir():
                target = os.path.join(out, name[len("nvidia/"):])
            else:
                continue
            if os.path.isabs(name) or ".." in name.split("/"):
                sys.exit(f"unsafe path {name!r} in {whl}")
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with z.open(info) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            mode = (info.external_attr >> 16) & 0o777
            os.chmod(target, mode or 0o644)
if not found_plugin:
    sys.exit("jax_plugins/xla_cuda12/xla_cuda_plugin.so not found in the wheels")
PY
chmod 0755 "$nv.new/pjrt_c_api_cuda_plugin.so"
[ -x "$nv.new/cuda_nvcc/bin/ptxas" ] || chmod 0755 "$nv.new/cuda_nvcc/bin/ptxas" 2>/dev/null || true
mkdir -p "$nv.new/bin"
ln -sf ../cuda_nvcc/bin/ptxas "$nv.new/bin/ptxas"
rm -rf "$nv"
mv "$nv.new" "$nv"
echo "$want" >"$stamp"
echo "install-xla-cuda: installed $nv/pjrt_c_api_cuda_plugin.so (jax-cuda12-pjrt==$JAX_VERSION) and the NVIDIA libraries"
echo "install-xla-cuda: use it with: GOMLX_BACKEND=xla:cuda (binaries built with -tags xla)"
