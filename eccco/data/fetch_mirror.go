package data

// Installing from a local mirror (FetchOptions.From, `eccco data fetch NAME --from DIR`): the paper's
// files copied and verified by size and sha256, raw upstream files converted to the paper's format
// (convert.go holds the conversions), idx files copied and verified. The conversions also serve the
// downloads of cal_housing.tgz and UCI's German Credit zip.

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// checkFrom fails with ErrInvalidOption when the mirror directory does not exist or is not a directory.
func (f *fetcher) checkFrom() error {
	st, err := os.Stat(f.opts.From)
	if err != nil {
		return markf(ErrInvalidOption, "the mirror directory (From, --from) cannot be used: %w", err)
	}
	if !st.IsDir() {
		return markf(ErrInvalidOption, "the mirror %s (From, --from) is not a directory", f.opts.From)
	}
	return nil
}

// tabularMirrorSources lists, for each candidate file present in From, a source that installs from it.
func (f *fetcher) tabularMirrorSources() []source {
	s := f.spec
	if err := f.checkFrom(); err != nil {
		return []source{{desc: "mirror " + f.opts.From, try: func() error { return err }}}
	}
	type cand struct {
		rel string
		try func(path string) error
	}
	cands := []cand{{s.csvFile, f.copyPaperCSV}}
	switch s.info.Name {
	case "california-housing":
		cands = append(cands,
			cand{"cal_housing.tgz", f.californiaFromTgz},
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

// visionMirrorSource installs the idx files from From/<subdir> or From itself.
func (f *fetcher) visionMirrorSource() source {
	return source{desc: "mirror " + f.opts.From, try: func() error {
		if err := f.checkFrom(); err != nil {
			return err
		}
		return f.installIDXFromDirs([]string{filepath.Join(f.opts.From, f.spec.subdir), f.opts.From})
	}}
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
		return markf(ErrChecksum, "size is %d bytes, the paper's %s has %d: not the paper's file (truncated or different)", st.Size(), s.csvFile, want.size)
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
		return markf(ErrChecksum, "checksum mismatch: sha256 is %s, the paper's %s has %s", sum, s.csvFile, want.sha256)
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

func path2base(name string) string { return path.Base(path.Clean(strings.ReplaceAll(name, `\`, "/"))) }

func (f *fetcher) balanceRand() *rand.Rand { return streamRand(f.opts.Seed, streamFetch) }

// ---- California Housing ----

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
		return markf(ErrChecksum, "checksum mismatch: sha256 of cal_housing.tgz is %s, want %s", sum, californiaTgzSHA256)
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

// ---- GMSC ----

func (f *fetcher) convertGMSCFile(path string) error {
	return withFile(path, func(r io.Reader) error { return f.gmscFrom(r, path) })
}

func (f *fetcher) convertGMSCZip(path string) error {
	return withZipEntry(path, "cs-training.csv", f.gmscFrom)
}

func (f *fetcher) gmscFrom(r io.Reader, name string) error {
	c, err := convertGMSC(r, f.balanceRand())
	if err != nil {
		return fmt.Errorf("converting %s: %w", name, err)
	}
	return f.installConverted(c, false)
}

// ---- German Credit ----

func (f *fetcher) convertGermanFile(path string) error {
	return withFile(path, func(r io.Reader) error { return f.germanFrom(r, path, false) })
}

func (f *fetcher) convertGermanZip(path string) error {
	return withZipEntry(path, "german.data", func(r io.Reader, name string) error { return f.germanFrom(r, name, false) })
}

// germanFrom converts UCI's german.data. When strict (a download, which UCI publishes no checksum for),
// the file must have UCI's counts: 1,000 rows, 700 good, 300 bad.
func (f *fetcher) germanFrom(r io.Reader, name string, strict bool) error {
	c, err := convertGermanUCI(r)
	if err != nil {
		return fmt.Errorf("converting %s: %w", name, err)
	}
	if strict && !strings.HasPrefix(c.summary, "1000 rows: 700 good, 300 bad") {
		return markf(ErrChecksum, "converting %s: got %s, UCI's german.data has 1000 rows: 700 good, 300 bad", name, c.summary)
	}
	return f.installConverted(c, strict)
}

// ---- idx files ----

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
