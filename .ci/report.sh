#!/usr/bin/env bash
# Report checks for CI: installs the TeX packages of scripts/texlive-packages.txt with apt-get (as root),
# builds bin/eccco, builds the committed full-protocol report from paper/results and
# paper/model-performance.csv into a temporary directory, compiles it and checks the PDF (page count with
# pdfinfo where poppler-utils is installed, else a non-empty file). Then the report package's tests, which
# compile a document when pdflatex is on PATH.
#
# Where apt-get cannot be used (not root, no apt, no network) and no TeX is installed, it prints why and a
# SKIP line and exits 0. Once TeX is there, any failure fails this script.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/goenv.sh

skip() {
  echo "$*"
  echo "SKIP: the report was not compiled (install TeX: apt-get install \$(cat scripts/texlive-packages.txt))"
  exit 0
}

echo "== report: TeX packages (scripts/texlive-packages.txt)"
mapfile -t packages < <(grep -v '^[[:space:]]*$' scripts/texlive-packages.txt)
if ! command -v pdflatex >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    # Bounded: a mirror that never answers must not hold CI up (the install takes a few minutes).
    timeout 120 apt-get update -qq >/dev/null 2>&1 || echo "apt-get update failed; trying the cached lists"
    if ! timeout 900 env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null 2>&1; then
      skip "apt-get install ${packages[*]} failed"
    fi
    # pdfinfo, for the page count (optional: the check falls back to the file size).
    timeout 300 env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends poppler-utils >/dev/null 2>&1 || true
  else
    skip "pdflatex is not installed and apt-get cannot be used here (not root, or no apt-get)"
  fi
fi
command -v pdflatex >/dev/null || skip "pdflatex is still not on PATH after installing ${packages[*]}"
pdflatex --version | head -1

echo "== report: build bin/eccco and the committed report into a temporary directory"
go build -o bin/eccco ./eccco/cmd/eccco
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bin/eccco report --results paper/results --perf paper/model-performance.csv --figures figures/gallery \
  --out "$tmp/report" --markdown "$tmp/eccco-go.md" --pdf "$tmp/eccco-go.pdf"
test -s "$tmp/eccco-go.pdf" || { echo "no PDF written"; exit 1; }
if command -v pdfinfo >/dev/null; then
  pages="$(pdfinfo "$tmp/eccco-go.pdf" | awk '/^Pages:/ { print $2 }')"
  echo "PDF: $pages pages"
  [ "${pages:-0}" -gt 10 ] || { echo "the report has ${pages:-0} pages; expected more than 10"; exit 1; }
else
  echo "PDF: $(stat -c %s "$tmp/eccco-go.pdf") bytes (pdfinfo not installed: no page count)"
fi

echo "== report: the committed PDF (paper/eccco-go.pdf) is the one these sources build, and under 2 MB"
committed=paper/eccco-go.pdf
test -s "$committed" || { echo "no committed $committed"; exit 1; }
size="$(stat -c %s "$committed")"
echo "committed PDF: $size bytes; built here: $(stat -c %s "$tmp/eccco-go.pdf") bytes"
[ "$size" -le 2000000 ] || { echo "$committed has $size bytes, over the 2 MB a tracked file may have"; exit 1; }
if command -v pdftotext >/dev/null; then
  # The text of both, but for what names the build itself (its commit, machine, backend and Go: rows of
  # the provenance table, with the lines a long value wraps onto).
  normal() {
    pdftotext -layout "$1" - | awk '
      /Report built at commit|Machine \(report build\)|Backend \(report build\)|^Go +go[0-9]/ { skip = 1; next }
      skip && /^ {20,}[^ ]/ { next }
      { skip = 0; print }'
  }
  if ! diff <(normal "$committed") <(normal "$tmp/eccco-go.pdf") >"$tmp/pdf.diff"; then
    echo "$committed differs from the PDF the committed sources build (rebuild it: bin/eccco report):"
    head -40 "$tmp/pdf.diff"
    exit 1
  fi
  echo "committed PDF: the same text as the one built here (its commit, machine and Go aside)"
fi

echo "== report: package tests (they compile a document), and the PDF figures' orientation (read back by pdftoppm)"
go test -count=1 ./eccco/report/...
if command -v pdftoppm >/dev/null; then
  go test -count=1 -run TestPDFImagesAreUpright -v ./eccco/plot | grep -E '^(--- |ok|FAIL)'
fi
